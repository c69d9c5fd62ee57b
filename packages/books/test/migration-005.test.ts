import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { migrate } from '../src/db/migrate.js';
import { BooksRepository } from '../src/modules/books/books.repository.js';
import { migrationsDir } from '../src/paths.js';
import { dropAllTables, migrationsBefore, migrationsFrom } from './support/migrations.js';
import { type Driver, openTestDatabase, postgresSkip } from './support/service.js';

const OLD_MIGRATIONS = migrationsBefore('005_row_versions.sql');
let oldDir: string;
before(async () => {
  oldDir = await mkdtemp(join(tmpdir(), 'books-old-migrations-'));
  for (const name of OLD_MIGRATIONS) await copyFile(join(migrationsDir, name), join(oldDir, name));
});
after(() => rm(oldDir, { recursive: true, force: true }));

const SAMPLE = { title: 'Dune', author: 'Herbert', synopsis: 'Spice.', copies: 1 };

function migrationSuite(driver: Driver, skip: false | string) {
  describe(`migration 005: row versions (${driver})`, { skip }, () => {
    test('existing rows start at version 0; every update of a row, a book counter included, adds one', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        await dropAllTables(db);
        assert.deepEqual((await migrate(db, oldDir)).applied, OLD_MIGRATIONS);
        const [user] = await db.query<{ id: string }>(
          "insert into users (issuer, subject) values ('urn:old', 'alice') returning id",
        );
        const [book] = await db.query<{ id: string }>(
          "insert into books (title, author, synopsis) values ('Dune', 'Herbert', 'Spice.') returning id",
        );
        const [reservation] = await db.query<{ id: string }>(
          "insert into reservations (book_id, user_id, status) values ($1, $2, 'WAITING') returning id",
          [book?.id, user?.id],
        );

        assert.deepEqual((await migrate(db)).applied, migrationsFrom('005_row_versions.sql'));
        const versions = async () => {
          const [row] = await db.query<{ book: number; reservation: number }>(
            'select b.version as book, r.version as reservation from books b, reservations r where b.id = $1 and r.id = $2',
            [book?.id, reservation?.id],
          );
          return row;
        };
        assert.deepEqual({ ...(await versions()) }, { book: 0, reservation: 0 });

        await db.query("update books set title = 'Dune Messiah' where id = $1", [book?.id]);
        assert.deepEqual({ ...(await versions()) }, { book: 1, reservation: 0 });
        // WAITING -> READY moves the book's counters through the trigger of migration 003: both move.
        await db.query(
          "update reservations set status = 'READY', ready_at = now(), pickup_deadline = now() where id = $1",
          [reservation?.id],
        );
        assert.deepEqual({ ...(await versions()) }, { book: 2, reservation: 1 });
        // A statement that touches the row without changing what it counts still moves it.
        await db.query('update reservations set pickup_deadline = pickup_deadline where id = $1', [
          reservation?.id,
        ]);
        assert.deepEqual({ ...(await versions()) }, { book: 2, reservation: 2 });
      } finally {
        await dispose();
      }
    });

    test('the conditional update and delete refuse a version that is no longer current', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        const books = new BooksRepository(db, 86_400_000);
        const caller = '00000000-0000-4000-8000-000000000000';
        const created = await books.create(SAMPLE, caller, new Date());
        const now = new Date();
        const first = await books.update(created.id, { ...SAMPLE, title: 'A' }, caller, now, created.version);
        assert.equal(first.outcome, 'updated');
        assert.equal(first.outcome === 'updated' && first.book.version, created.version + 1);
        const second = await books.update(
          created.id,
          { ...SAMPLE, title: 'B' },
          caller,
          now,
          created.version,
        );
        assert.deepEqual(second, { outcome: 'version_changed' });
        assert.equal(
          await books.deleteUnlessOpenlyReserved(created.id, caller, now, created.version),
          'version_changed',
        );
        assert.equal((await books.findById(created.id, caller))?.title, 'A');
        assert.equal(
          await books.deleteUnlessOpenlyReserved(created.id, caller, now, created.version + 1),
          'deleted',
        );
      } finally {
        await dispose();
      }
    });
  });
}

migrationSuite('pglite', false);
migrationSuite('postgres', postgresSkip());
