import assert from 'node:assert/strict';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BOOK_COUNT, seedBooks } from '../bench/seed.js';
import type { Queryable } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { bookSearchPageSql } from '../src/modules/books/books.repository.js';
import { migrationsDir } from '../src/paths.js';
import { dropAllTables, migrationsBefore, migrationsFrom } from './support/migrations.js';
import { type Driver, openTestDatabase, postgresSkip } from './support/service.js';

const BEFORE_006 = migrationsBefore('006_book_search_index_no_pending_list.sql');
const CALLER = '00000000-0000-0000-0000-000000000000';

let oldDir: string;
before(async () => {
  oldDir = await mkdtemp(join(tmpdir(), 'books-migrations-005-'));
  for (const name of BEFORE_006) await copyFile(join(migrationsDir, name), join(oldDir, name));
});
after(() => rm(oldDir, { recursive: true, force: true }));

/** Pages of the search index's pending list, which this call also empties (0: nothing was pending). */
async function pendingPages(db: Queryable): Promise<number> {
  const [row] = await db.query<{ pages: number }>("select gin_clean_pending_list('books_search') as pages");
  return Number(row?.pages);
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

function planNodes(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(planNodes)];
}

/** The plan of the search page statement for `q`, as the service runs it (the default sort). */
async function searchPlan(db: Queryable, q: string): Promise<PlanNode[]> {
  const [row] = await db.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
    `explain (format json) ${bookSearchPageSql([{ property: 'title', direction: 'asc' }])}`,
    [20, 0, CALLER, q],
  );
  const plan = row?.['QUERY PLAN'][0]?.Plan;
  assert.ok(plan, 'explain answered a plan');
  return planNodes(plan);
}

function searchSuite(driver: Driver, skip: false | string) {
  describe(`the search index (${driver})`, { skip }, () => {
    test('migration 006 empties the GIN pending list of a database migrated to 005 and keeps it empty', async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        await dropAllTables(db);
        assert.deepEqual((await migrate(db, oldDir)).applied, BEFORE_006);
        // Books written after 004 made the index wait in its pending list (fastupdate, the default).
        await db.query(
          `insert into books (title, author, synopsis)
           select 'Old book ' || i, 'Author ' || i, 'An archived volume.' from generate_series(1, 200) i`,
        );
        const optionsSql =
          "select reloptions as options from pg_class where relname = 'books_search' and relnamespace = current_schema()::regnamespace";
        const [optionsBefore] = await db.query<{ options: string[] | null }>(optionsSql);
        assert.equal(optionsBefore?.options, null, '004 made the index with the defaults');

        assert.deepEqual(
          (await migrate(db)).applied,
          migrationsFrom('006_book_search_index_no_pending_list.sql'),
        );
        assert.equal(await pendingPages(db), 0, 'the rebuild left nothing pending');
        const [options] = await db.query<{ options: string[] }>(optionsSql);
        assert.deepEqual(options?.options, ['fastupdate=off']);

        await db.query(
          "insert into books (title, author, synopsis) values ('New book', 'New author', 'A zeppelin voyage.')",
        );
        assert.equal(await pendingPages(db), 0, 'a new book goes into the index proper');
        const found = await db.query<{ title: string }>(bookSearchPageSql([]), [50, 0, CALLER, 'zeppelin']);
        assert.deepEqual(
          found.map((row) => row.title),
          ['New book'],
        );
        const [old] = await db.query<{ total: number }>(bookSearchPageSql([]), [1, 0, CALLER, 'archived']);
        assert.equal(old?.total, 200, 'the books indexed before 006 are still found');
      } finally {
        await dispose();
      }
    });

    test(`a search among ${BOOK_COUNT} books reads them once, through the GIN index, custom and generic plan alike`, async () => {
      const { db, dispose } = await openTestDatabase(driver);
      try {
        await seedBooks(db);
        const assertIndexedOnce = (nodes: PlanNode[], plan: string) => {
          const booksReads = nodes.filter((node) => node['Relation Name'] === 'books');
          assert.deepEqual(
            booksReads.map((node) => node['Node Type']),
            ['Bitmap Heap Scan'],
            `${plan}: books is read once, by the index's bitmap`,
          );
          assert.ok(
            nodes.some(
              (node) => node['Node Type'] === 'Bitmap Index Scan' && node['Index Name'] === 'books_search',
            ),
            `${plan}: the matches come from books_search`,
          );
        };
        // 20 matches: authors `Author 42`, book 42 among them.
        assertIndexedOnce(await searchPlan(db, '42'), 'custom plan');
        await db.transaction(async (tx) => {
          // The plan a named prepared statement settles on after a few runs (pg on PostgreSQL).
          await tx.query('set local plan_cache_mode = force_generic_plan');
          assertIndexedOnce(await searchPlan(tx, '42'), 'generic plan');
        });
        const [page] = await db.query<{ total: number }>(bookSearchPageSql([]), [20, 0, CALLER, '42']);
        assert.equal(page?.total, 20);
      } finally {
        await dispose();
      }
    });
  });
}

searchSuite('pglite', false);
searchSuite('postgres', postgresSkip());
