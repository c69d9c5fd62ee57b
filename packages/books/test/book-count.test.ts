import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import type { Database } from '../src/db/database.js';
import type { BookSortProperty } from '../src/modules/books/book.js';
import { BooksRepository } from '../src/modules/books/books.repository.js';
import type { PageRequest } from '../src/page-request.js';
import { type Driver, openTestDatabase, postgresSkip } from './support/service.js';

// Nobody: no book is held by this caller.
const CALLER = randomUUID();

const firstPage: PageRequest<BookSortProperty> = {
  page: 0,
  size: 5,
  sort: [{ property: 'title', direction: 'asc' }],
};

async function countedTotal(db: Database): Promise<number> {
  const [row] = await db.query<{ total: number }>('select count(*)::int as total from books');
  return row?.total ?? -1;
}

function bookCountSuite(driver: Driver, skip: false | string) {
  describe(`the maintained book total (${driver})`, { skip }, () => {
    test('matches count(*) after concurrent inserts, deletes, bulk statements and a rollback', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        const books = new BooksRepository(db, 86_400_000);
        const created = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            books.create({ title: `T${i}`, author: 'A', synopsis: 'S', copies: 1 }, CALLER, new Date()),
          ),
        );
        await Promise.all(
          created.slice(0, 10).map((book) => books.deleteUnlessOpenlyReserved(book.id, CALLER, new Date())),
        );
        await db.query(
          "insert into books (title, author, synopsis) select 'Bulk ' || i, 'A', 'S' from generate_series(1, 7) as i",
        );
        await db.query("delete from books where title like 'Bulk %' and title <> 'Bulk 1'");
        await assert.rejects(
          db.transaction(async (tx) => {
            await tx.query("insert into books (title, author, synopsis) values ('Rolled back', 'A', 'S')");
            throw new Error('abort');
          }),
          /abort/,
        );
        const { total } = await books.page(firstPage, CALLER);
        assert.equal(total, 21);
        assert.equal(total, await countedTotal(db));
      } finally {
        await dispose();
      }
    });

    test('a page past the end still carries the total; truncate resets it', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        const books = new BooksRepository(db, 86_400_000);
        for (const title of ['B', 'A', 'C'])
          await books.create({ title, author: 'A', synopsis: 'S', copies: 1 }, CALLER, new Date());
        const page = await books.page(firstPage, CALLER);
        assert.deepEqual(
          page.items.map((book) => book.title),
          ['A', 'B', 'C'],
        );
        assert.deepEqual(await books.page({ ...firstPage, page: 4 }, CALLER), { items: [], total: 3 });
        await db.exec('truncate books cascade');
        assert.deepEqual(await books.page(firstPage, CALLER), { items: [], total: 0 });
      } finally {
        await dispose();
      }
    });
  });
}

bookCountSuite('pglite', false);
bookCountSuite('postgres', postgresSkip());
