import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { hasSqlState, SqlState } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { migrationsDir } from '../src/paths.js';
import { dropAllTables, migrationsBefore, migrationsFrom } from './support/migrations.js';
import { type Driver, openTestDatabase, postgresSkip } from './support/service.js';

const OLD_MIGRATIONS = migrationsBefore('003_reservation_workflow.sql');
let oldDir: string;
before(async () => {
  oldDir = await mkdtemp(join(tmpdir(), 'books-old-migrations-'));
  for (const name of OLD_MIGRATIONS) await copyFile(join(migrationsDir, name), join(oldDir, name));
});
after(() => rm(oldDir, { recursive: true, force: true }));

function migrationSuite(driver: Driver, skip: false | string) {
  describe(`migration 003 on a database holding the old schema (${driver})`, { skip }, () => {
    test('ACTIVE reservations become READY or WAITING in reservation order; the rest keeps its meaning', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        // Back to the schema of migrations 001 and 002, filled the way the old service filled it.
        await dropAllTables(db);
        assert.deepEqual((await migrate(db, oldDir)).applied, OLD_MIGRATIONS);
        const [alice, bob, carol] = await db.query<{ id: string }>(
          `insert into users (issuer, subject, email) values
             ('urn:old', 'alice', 'alice@example.com'), ('urn:old', 'bob', 'bob@example.com'),
             ('urn:old', 'carol', 'carol@example.com') returning id`,
        );
        const [dune, emma] = await db.query<{ id: string }>(
          `insert into books (title, author, synopsis) values ('Dune', 'Herbert', 'Spice.'), ('Emma', 'Austen', 'Matches.')
           returning id`,
        );
        const old = async (book: string, user: string, minute: number, status = 'ACTIVE') => {
          const [row] = await db.query<{ id: string }>(
            `insert into reservations (book_id, user_id, status, reserved_at, cancelled_at)
             values ($1, $2, $3, timestamptz '2026-01-01 10:00Z' + make_interval(mins => $4::int),
                     case when $3 = 'CANCELLED' then timestamptz '2026-01-02 10:00Z' end) returning id`,
            [book, user, status, minute],
          );
          return row?.id ?? '';
        };
        // Inserted out of order: reservation order is reserved_at, not insertion order.
        const carolsDune = await old(dune?.id ?? '', carol?.id ?? '', 3);
        const alicesDune = await old(dune?.id ?? '', alice?.id ?? '', 1);
        const bobsCancelled = await old(dune?.id ?? '', bob?.id ?? '', 0, 'CANCELLED');
        const bobsDune = await old(dune?.id ?? '', bob?.id ?? '', 2);
        const alicesEmma = await old(emma?.id ?? '', alice?.id ?? '', 5);

        const before = Date.now();
        assert.deepEqual((await migrate(db)).applied, migrationsFrom('003_reservation_workflow.sql'));
        const rows = await db.query<{
          id: string;
          status: string;
          ready_at: Date | null;
          pickup_deadline: Date | null;
          cancelled_at: Date | null;
        }>('select id, status, ready_at, pickup_deadline, cancelled_at from reservations');
        const byId = new Map(rows.map((row) => [row.id, row]));
        assert.equal(byId.get(alicesDune)?.status, 'READY', 'first in reservation order gets the one copy');
        assert.equal(byId.get(bobsDune)?.status, 'WAITING');
        assert.equal(byId.get(carolsDune)?.status, 'WAITING');
        assert.equal(byId.get(alicesEmma)?.status, 'READY');
        assert.equal(byId.get(bobsCancelled)?.status, 'CANCELLED');
        assert.ok(byId.get(bobsCancelled)?.cancelled_at);
        const ready = byId.get(alicesDune);
        assert.ok(ready?.ready_at && ready.pickup_deadline);
        assert.ok(ready.ready_at.getTime() >= before - 60_000);
        assert.equal(ready.pickup_deadline.getTime() - ready.ready_at.getTime(), 3 * 86_400_000);

        const queue = await db.query<{ id: string }>(
          "select id from reservations where book_id = $1 and status = 'WAITING' order by queue_order",
          [dune?.id],
        );
        assert.deepEqual(
          queue.map((row) => row.id),
          [bobsDune, carolsDune],
          'the queue keeps reservation order',
        );
        const counts = await db.query<{ title: string; copies: number; held: number; waiting: number }>(
          'select title, copies, held, waiting from books order by title',
        );
        assert.deepEqual(
          counts.map((row) => ({ ...row })),
          [
            { title: 'Dune', copies: 1, held: 1, waiting: 2 },
            { title: 'Emma', copies: 1, held: 1, waiting: 0 },
          ],
        );
        // The new invariants hold on the migrated rows: one open reservation per user and book.
        await assert.rejects(
          db.query("insert into reservations (book_id, user_id, status) values ($1, $2, 'WAITING')", [
            dune?.id,
            bob?.id,
          ]),
          (error) => hasSqlState(error, SqlState.uniqueViolation),
        );
        const [fresh] = await db.query<{ queue_order: string }>(
          "insert into reservations (book_id, user_id, status) values ($1, $2, 'WAITING') returning queue_order",
          [emma?.id, bob?.id],
        );
        // After the five migrated rows (the refused insert above may have spent a number too).
        assert.ok(Number(fresh?.queue_order) > 5, 'new reservations queue after the migrated ones');
      } finally {
        await dispose();
      }
    });
  });
}

migrationSuite('pglite', false);
migrationSuite('postgres', postgresSkip());
