import { readdir, readFile } from 'node:fs/promises';
import { migrationsDir } from '../paths.js';
import type { Database } from './database.js';

// Any constant works: it only has to be the same for every process migrating this database.
const MIGRATION_LOCK_KEY = 736_421_908;

export interface MigrationResult {
  applied: string[];
}

/**
 * Applies the migrations (files NNN_name.sql, in name order) not yet recorded in schema_migrations, each in its own transaction.
 * A transaction-scoped advisory lock serialises concurrent migrators (several replicas starting at once).
 */
export async function migrate(db: Database, dir = migrationsDir): Promise<MigrationResult> {
  const files = (await readdir(dir)).filter((name) => /^\d{3}_[a-z0-9_]+\.sql$/.test(name)).sort();
  await db.transaction(async (tx) => {
    await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await tx.exec(
      'create table if not exists schema_migrations (name text primary key, applied_at timestamptz not null default now())',
    );
  });
  const applied: string[] = [];
  for (const name of files) {
    const sql = await readFile(`${dir}/${name}`, 'utf8');
    const didApply = await db.transaction(async (tx) => {
      await tx.query('select pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const done = await tx.query('select 1 from schema_migrations where name = $1', [name]);
      if (done.length > 0) return false;
      await tx.exec(sql);
      await tx.query('insert into schema_migrations (name) values ($1)', [name]);
      return true;
    });
    if (didApply) applied.push(name);
  }
  return { applied };
}
