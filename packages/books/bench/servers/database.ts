import type { Queryable } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite, type PgliteThread } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import { seedBooks } from '../seed.js';

/**
 * The benchmark database of a server process: its own in-memory PGlite (in `pgliteThread`), or the
 * PostgreSQL schema the runner created (BENCH_PG_URL, BENCH_PG_SCHEMA). Migrated and seeded either way.
 */
export async function openBenchDatabase(env: NodeJS.ProcessEnv, pgliteThread: PgliteThread = 'main') {
  const url = env.BENCH_PG_URL;
  const db =
    url !== undefined && url !== ''
      ? await openPostgres({ connectionString: url, poolMax: 20, schema: env.BENCH_PG_SCHEMA ?? 'public' })
      : await openPglite(undefined, undefined, pgliteThread);
  await migrate(db);
  await seedBooks(db);
  return db;
}

/** Tells the runner on stdout which port the server listens on. */
export function announce(port: number): void {
  process.stdout.write(`${JSON.stringify({ listening: port })}\n`);
}

/**
 * Gives the baseline's own database the session the runner logged in with (PGlite: every process has
 * its own copy; PostgreSQL: the row is already there), so "baseline + session" looks up a real row.
 */
export async function ensureBenchSession(db: Queryable, idHash: string): Promise<void> {
  const [user] = await db.query<{ id: string }>(
    `insert into users (issuer, subject, email, email_verified, name) values ('urn:books:bench', 'bench', 'bench@example.com', true, 'Bench')
     on conflict (issuer, subject) do update set name = excluded.name returning id`,
  );
  await db.query(
    `insert into sessions (id_hash, user_id, expires_at) values ($1, $2, now() + interval '1 hour')
     on conflict (id_hash) do nothing`,
    [idHash, user?.id],
  );
}
