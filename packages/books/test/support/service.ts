import { randomBytes } from 'node:crypto';
import { databaseUrl } from '@platform/testkit';
import type { FastifyInstance } from 'fastify';
import pg from 'pg';
import { buildApp } from '../../src/app/app.js';
import { type Config, loadConfig } from '../../src/config.js';
import type { Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { openPostgres } from '../../src/db/postgres.js';
import { UsersRepository } from '../../src/modules/users/users.repository.js';
import { leasePglite } from './pglite-pool.js';
import { migratedDump } from './pglite-template.js';

export type Driver = 'pglite' | 'postgres';

/** A settable clock, so session expiry is tested without sleeping. */
export class TestClock {
  constructor(public nowMs = Date.now()) {}
  readonly now = () => this.nowMs;
  advance(ms: number): void {
    this.nowMs += ms;
  }
}

export interface TestDatabase {
  db: Database;
  /** Closes the connection and removes what the test created (the PostgreSQL schema). */
  dispose(): Promise<void>;
}

/**
 * PGlite in memory (from a migrated snapshot) or in `dataDir` (migrated as the service does), or a
 * fresh, uniquely named schema on the DATABASE_URL server.
 */
export async function openTestDatabase(driver: Driver, dataDir?: string): Promise<TestDatabase> {
  if (driver === 'pglite') {
    const db =
      dataDir === undefined ? await openPglite(undefined, await migratedDump()) : await openPglite(dataDir);
    await migrate(db);
    return { db, dispose: () => db.close() };
  }
  const url = databaseUrl();
  if (url === undefined)
    throw new Error('DATABASE_URL is not set; skip PostgreSQL suites with postgresSkip()');
  const schema = `books_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  const db = await openPostgres({ connectionString: url, poolMax: 20, schema });
  await migrate(db);
  return {
    db,
    async dispose() {
      await db.close();
      const cleaner = new pg.Client({ connectionString: url });
      await cleaner.connect();
      await cleaner.query(`drop schema ${schema} cascade`);
      await cleaner.end();
    },
  };
}

/** Skip reason for PostgreSQL suites when DATABASE_URL is missing (a failure under CI, see testkit). */
export function postgresSkip(): false | string {
  return databaseUrl() === undefined ? 'DATABASE_URL is not set' : false;
}

export interface TestService {
  app: FastifyInstance;
  db: Database;
  /** http://127.0.0.1:<port> */
  url: string;
  config: Config;
  /** The users repository over the same database (test sessions create their users through it). */
  users: UsersRepository;
  clock: TestClock;
  close(): Promise<void>;
}

export interface TestServiceOptions {
  env?: NodeJS.ProcessEnv;
  database?: TestDatabase;
  logger?: Parameters<typeof buildApp>[0]['logger'];
  /** Runs after the app is built and before it listens (to add test-only routes). */
  beforeListen?: (app: FastifyInstance) => void | Promise<void>;
}

/** The real app over real HTTP on a loopback port, on a fresh database (PGlite: an emptied one, see pglite-pool). */
export async function startTestService(
  driver: Driver,
  options: TestServiceOptions = {},
): Promise<TestService> {
  const database =
    options.database ?? (driver === 'pglite' ? await leasePglite() : await openTestDatabase(driver));
  // The per-user limit runs in every test (in process), high enough that no suite's burst reaches it;
  // test/rate-limit.test.ts sets its own.
  const config = loadConfig({
    ADMIN_EMAILS: 'admin@example.com',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...options.env,
  });
  const clock = new TestClock();
  const app = await buildApp({ config, db: database.db, clock: clock.now, logger: options.logger ?? false });
  await options.beforeListen?.(app);
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    app,
    db: database.db,
    url,
    config,
    users: new UsersRepository(database.db, config.adminEmails),
    clock,
    async close() {
      await app.close();
      await database.dispose();
    },
  };
}
