// In-memory PGlite databases for test services, reused within a test process. A new instance from the
// migrated template takes about 2 s (the WASM cluster starts); emptying a used one back to the rows the
// migrations left takes a few tens of milliseconds. A file with twenty services saved most of a minute.
import { after } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { migratedDump } from './pglite-template.js';

/** Every table, with the rows the migrations left in it (the one-row counter, the migration log). */
interface MigratedState {
  tables: string[];
  rows: Map<string, unknown[]>;
}

const idle: Database[] = [];
let migratedState: Promise<MigratedState> | undefined;
/** Set when the file's tests are done: a database given back after that is closed, not kept. */
let done = false;

// An open PGlite keeps its process from exiting (it holds no handle that shows, but the loop stays up), so
// the pool is emptied once the file's tests are done. Registered when this module loads, while the
// importing test file is still at its top level: the hook is the root test's. The file's own root `after`
// hooks may run later and give back their services' databases then: those are closed at once.
after(async () => {
  done = true;
  await Promise.all(idle.splice(0).map((db) => db.close()));
});

async function readState(db: Database): Promise<MigratedState> {
  const tables = (
    await db.query<{ name: string }>(
      `select quote_ident(tablename) as name from pg_tables where schemaname = current_schema() order by 1`,
    )
  ).map(({ name }) => name);
  const rows = new Map<string, unknown[]>();
  for (const table of tables) {
    const [row] = await db.query<{ rows: unknown[] | null }>(`select json_agg(t) as rows from ${table} t`);
    if (row?.rows) rows.set(table, row.rows);
  }
  return { tables, rows };
}

/** Back to the state the migrations left: every table emptied (sequences restarted), their rows put back. */
async function reset(db: Database, { tables, rows }: MigratedState): Promise<void> {
  await db.transaction(async (tx) => {
    // The audit log refuses TRUNCATE (migration 008); a test database being recycled is not an audit
    // trail, so its triggers are off for this transaction (PGlite runs as a superuser).
    await tx.exec('set local session_replication_role = replica');
    await tx.exec(`truncate ${tables.join(', ')} restart identity cascade`);
    for (const [table, content] of rows) {
      await tx.query(`insert into ${table} select * from json_populate_recordset(null::${table}, $1)`, [
        JSON.stringify(content),
      ]);
    }
  });
}

export interface LeasedDatabase {
  db: Database;
  /** Empties the database and keeps it for the next lease (closes it if that fails). */
  dispose(): Promise<void>;
}

/** A migrated in-memory PGlite database with nothing in it but what the migrations put there. */
export async function leasePglite(): Promise<LeasedDatabase> {
  let db = idle.pop();
  if (db === undefined) {
    db = await openPglite(undefined, await migratedDump());
    await migrate(db);
    migratedState ??= readState(db);
  }
  const state = await (migratedState ?? readState(db));
  const leased = db;
  return {
    db: leased,
    async dispose() {
      if (done) return leased.close();
      try {
        await reset(leased, state);
      } catch (error) {
        await leased.close();
        throw error;
      }
      idle.push(leased);
    },
  };
}
