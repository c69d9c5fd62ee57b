import type { Queryable } from '../src/db/database.js';

export const BOOK_COUNT = 10_000;

/**
 * 10,000 books with deterministic contents and ids, so the service and the baseline (each with its own
 * PGlite, or sharing one PostgreSQL schema) serve identical data. Idempotent: seeds an empty table only.
 */
export async function seedBooks(db: Queryable): Promise<void> {
  const [existing] = await db.query<{ total: number }>('select count(*)::int as total from books');
  if ((existing?.total ?? 0) > 0) return;
  await db.query(
    `insert into books (id, title, author, synopsis)
     select md5('book-' || i)::uuid, 'Book ' || lpad(i::text, 5, '0'), 'Author ' || (i % 500), 'Synopsis of book ' || i || '. ' || repeat('Lorem ipsum ', 10)
     from generate_series(1, $1::int) as i`,
    [BOOK_COUNT],
  );
  await db.exec('analyze books');
}
