import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hasSqlState } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { migrationsDir } from '../src/paths.js';
import { dropAllTables, migrationsBefore, migrationsFrom } from './support/migrations.js';
import { type Driver, openTestDatabase, postgresSkip } from './support/service.js';

const OLD_MIGRATIONS = migrationsBefore('007_loans.sql');
const DAY_MS = 86_400_000;
let oldDir: string;
before(async () => {
  oldDir = await mkdtemp(join(tmpdir(), 'books-old-migrations-'));
  for (const name of OLD_MIGRATIONS) await copyFile(join(migrationsDir, name), join(oldDir, name));
});
after(() => rm(oldDir, { recursive: true, force: true }));

// SQLSTATE 23514, check_violation: the constraint and the trigger of migration 007 both raise it.
const refusedByTheDatabase = (error: unknown) => hasSqlState(error, '23514');

function migrationSuite(driver: Driver, skip: false | string) {
  describe(`migration 007: loans (${driver})`, { skip }, () => {
    test('existing COLLECTED and RETURNED rows get a due date 21 days after their collection', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        await dropAllTables(db);
        assert.deepEqual((await migrate(db, oldDir)).applied, OLD_MIGRATIONS);
        const [user] = await db.query<{ id: string }>(
          "insert into users (issuer, subject) values ('urn:old', 'alice') returning id",
        );
        const [book] = await db.query<{ id: string }>(
          "insert into books (title, author, synopsis, copies) values ('Dune', 'Herbert', 'Spice.', 3) returning id",
        );
        const collectedAt = new Date('2026-01-10T09:30:00Z');
        const insert = async (status: string, stamps: string) => {
          const [row] = await db.query<{ id: string }>(
            `insert into reservations (book_id, user_id, status, ready_at, pickup_deadline, collected_at, returned_at)
             values ($1, $2, '${status}', ${stamps}) returning id`,
            [book?.id, user?.id, collectedAt],
          );
          return row?.id;
        };
        const lent = await insert('COLLECTED', '$3, $3, $3, null');
        // Another user's loan: one open reservation per user and book.
        const [other] = await db.query<{ id: string }>(
          "insert into users (issuer, subject) values ('urn:old', 'bob') returning id",
        );
        const [returned] = await db.query<{ id: string }>(
          `insert into reservations (book_id, user_id, status, ready_at, pickup_deadline, collected_at, returned_at)
           values ($1, $2, 'RETURNED', $3, $3, $3, $3) returning id`,
          [book?.id, other?.id, collectedAt],
        );
        const [ready] = await db.query<{ id: string }>(
          `insert into reservations (book_id, user_id, status, ready_at, pickup_deadline)
           values ($1, $2, 'READY', $3, $3) returning id`,
          [book?.id, other?.id, collectedAt],
        );

        assert.deepEqual((await migrate(db)).applied, migrationsFrom('007_loans.sql'));
        const loanOf = async (id: string | undefined) => {
          const [row] = await db.query<{
            due_at: Date | null;
            renewals: number;
            max_renewals: number;
            renewed_at: Date | null;
            overdue_at: Date | null;
          }>(
            'select due_at, renewals, max_renewals, renewed_at, overdue_at from reservations where id = $1',
            [id],
          );
          return { ...row };
        };
        const due = new Date(collectedAt.getTime() + 21 * DAY_MS);
        const migrated = { due_at: due, renewals: 0, max_renewals: 2, renewed_at: null, overdue_at: null };
        assert.deepEqual(await loanOf(lent), migrated);
        assert.deepEqual(await loanOf(returned?.id), migrated);
        assert.deepEqual(await loanOf(ready?.id), {
          due_at: null,
          renewals: 0,
          max_renewals: 0,
          renewed_at: null,
          overdue_at: null,
        });
      } finally {
        await dispose();
      }
    });

    test('the database refuses a renewal that breaks the loan rules, whatever statement makes it', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        const [user] = await db.query<{ id: string }>(
          "insert into users (issuer, subject) values ('urn:t', 'alice') returning id",
        );
        const [other] = await db.query<{ id: string }>(
          "insert into users (issuer, subject) values ('urn:t', 'bob') returning id",
        );
        const [book] = await db.query<{ id: string }>(
          "insert into books (title, author, synopsis, copies) values ('Dune', 'Herbert', 'Spice.', 1) returning id",
        );
        const collected = new Date('2026-03-01T00:00:00Z');
        const due = new Date(collected.getTime() + 21 * DAY_MS);
        const [loan] = await db.query<{ id: string }>(
          `insert into reservations (book_id, user_id, status, ready_at, pickup_deadline, collected_at, due_at, max_renewals)
           values ($1, $2, 'COLLECTED', $3, $3, $3, $4, 1) returning id`,
          [book?.id, user?.id, collected, due],
        );
        const renew = (set: string, params: unknown[] = []) =>
          db.query(`update reservations set ${set} where id = $1`, [loan?.id, ...params]);
        const later = new Date(due.getTime() + 21 * DAY_MS);
        const beforeDue = new Date(due.getTime() - DAY_MS);

        await assert.rejects(
          renew('due_at = $2, renewals = 2, renewed_at = $3', [later, beforeDue]),
          refusedByTheDatabase,
          'two renewals at once',
        );
        await assert.rejects(
          renew('due_at = $2, renewals = 1, renewed_at = $3', [later, due]),
          refusedByTheDatabase,
          'a renewal once due',
        );
        await assert.rejects(
          renew('due_at = $2', [later]),
          refusedByTheDatabase,
          'a due date moved without a renewal',
        );
        const [waiting] = await db.query<{ id: string }>(
          "insert into reservations (book_id, user_id, status) values ($1, $2, 'WAITING') returning id",
          [book?.id, other?.id],
        );
        await assert.rejects(
          renew('due_at = $2, renewals = 1, renewed_at = $3', [later, beforeDue]),
          refusedByTheDatabase,
          'a renewal while someone waits',
        );
        await db.query('delete from reservations where id = $1', [waiting?.id]);
        await renew('due_at = $2, renewals = 1, renewed_at = $3', [later, beforeDue]);
        await assert.rejects(
          renew('due_at = $2, renewals = 2, renewed_at = $3', [
            new Date(later.getTime() + DAY_MS),
            beforeDue,
          ]),
          refusedByTheDatabase,
          'more renewals than the loan allows',
        );
        await assert.rejects(
          db.query(
            "update reservations set status = 'RETURNED', returned_at = $2, due_at = $3 where id = $1",
            [loan?.id, beforeDue, new Date(later.getTime() + DAY_MS)],
          ),
          refusedByTheDatabase,
          'a return that moves the due date',
        );
      } finally {
        await dispose();
      }
    });
  });
}

migrationSuite('pglite', false);
migrationSuite('postgres', postgresSkip());
