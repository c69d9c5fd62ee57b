import type { Database } from '../../db/database.js';
import { orderByClause } from '../../db/order-by.js';
import type { PageRequest, SortOrder } from '../../page-request.js';
import type { Book, BookFields, BookSortProperty } from './book.js';

interface BookRow {
  id: string;
  title: string;
  author: string;
  synopsis: string;
  created_at: Date;
  updated_at: Date;
}

/** A row of the page query: a book with the total, or (past the end) the total with null book columns. */
type PageRow = (BookRow & { total: number }) | { id: null; total: number };

const COLUMNS = 'id, title, author, synopsis, created_at, updated_at';
const SORT_COLUMNS: Record<BookSortProperty, string> = {
  title: 'title',
  author: 'author',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/**
 * A page of books and the total in ONE statement (one round trip, one snapshot). The total is the
 * trigger-maintained book_count row (migration 002), not count(*) over every book. The page is joined
 * to that single row, so a page past the end still answers one row: the total with null book columns.
 * The outer order by keeps the page order, which a join alone does not promise.
 */
export function bookPageSql(sort: readonly SortOrder<BookSortProperty>[]): string {
  const orderBy = orderByClause(sort, SORT_COLUMNS);
  const pageColumns = COLUMNS.split(', ').map((column) => `page.${column}`);
  return `select ${pageColumns.join(', ')}, counted.total::int as total from book_count counted
    left join lateral (select ${COLUMNS} from books ${orderBy} limit $1 offset $2) page on true ${orderBy}`;
}

function bookFromRow(row: BookRow): Book {
  return {
    id: row.id,
    title: row.title,
    author: row.author,
    synopsis: row.synopsis,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export type DeleteOutcome = 'deleted' | 'not_found' | 'has_active_reservations';

export class BooksRepository {
  constructor(private readonly db: Database) {}

  async create(fields: BookFields): Promise<Book> {
    const [row] = await this.db.query<BookRow>(
      `insert into books (title, author, synopsis) values ($1, $2, $3) returning ${COLUMNS}`,
      [fields.title, fields.author, fields.synopsis],
    );
    if (row === undefined) throw new Error('insert returned no row');
    return bookFromRow(row);
  }

  async findById(id: string): Promise<Book | undefined> {
    const [row] = await this.db.query<BookRow>(`select ${COLUMNS} from books where id = $1`, [id]);
    return row === undefined ? undefined : bookFromRow(row);
  }

  async update(id: string, fields: BookFields): Promise<Book | undefined> {
    const [row] = await this.db.query<BookRow>(
      `update books set title = $2, author = $3, synopsis = $4, updated_at = now() where id = $1 returning ${COLUMNS}`,
      [id, fields.title, fields.author, fields.synopsis],
    );
    return row === undefined ? undefined : bookFromRow(row);
  }

  async page(request: PageRequest<BookSortProperty>): Promise<{ items: Book[]; total: number }> {
    const rows = await this.db.query<PageRow>(bookPageSql(request.sort), [
      request.size,
      request.page * request.size,
    ]);
    const items: Book[] = [];
    for (const row of rows) if (row.id !== null) items.push(bookFromRow(row));
    return { items, total: rows[0]?.total ?? 0 };
  }

  /**
   * Deletes the book unless it has ACTIVE reservations. The row lock conflicts with the key-share lock
   * a concurrent reservation insert takes on the book, so no reservation can slip in between check and delete.
   */
  deleteUnlessActivelyReserved(id: string): Promise<DeleteOutcome> {
    return this.db.transaction(async (tx) => {
      const locked = await tx.query('select 1 from books where id = $1 for update', [id]);
      if (locked.length === 0) return 'not_found';
      const active = await tx.query(
        "select 1 from reservations where book_id = $1 and status = 'ACTIVE' limit 1",
        [id],
      );
      if (active.length > 0) return 'has_active_reservations';
      await tx.query('delete from books where id = $1', [id]);
      return 'deleted';
    });
  }
}
