import type { Database, Queryable } from '../../db/database.js';
import { orderByClause } from '../../db/order-by.js';
import type { PageRequest, SortOrder } from '../../page-request.js';
import { actingAs } from '../audit/acting.js';
import { lockBook, OPEN_STATUSES_SQL, settleBook } from '../reservations/reservations.repository.js';
import type { Book, BookFields, BookSortProperty } from './book.js';

interface BookRow {
  id: string;
  title: string;
  author: string;
  synopsis: string;
  copies: number;
  held: number;
  waiting: number;
  held_by_caller: boolean;
  created_at: Date;
  updated_at: Date;
  version: number;
}

/** A row of the page query: a book with the total, or (past the end) the total with null book columns. */
type PageRow = (BookRow & { total: number }) | { id: null; total: number };

const COLUMNS = 'id, title, author, synopsis, copies, held, waiting, created_at, updated_at, version';
const SORT_COLUMNS: Record<BookSortProperty, string> = {
  title: 'title',
  author: 'author',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
};

/** Whether the user in `$param` holds an open reservation of the book `alias`.id. */
const heldByCallerSql = (alias: string, param: string) =>
  `exists (select 1 from reservations r where r.book_id = ${alias}.id and r.user_id = ${param}
    and r.status in (${OPEN_STATUSES_SQL})) as held_by_caller`;

/** One book (`$1`) with whether the caller (`$2`) holds it. */
export const BOOK_BY_ID_SQL = `select ${COLUMNS}, ${heldByCallerSql('books', '$2')} from books where id = $1`;

/**
 * A page of books and the total in ONE statement (one round trip, one snapshot). The total is the
 * trigger-maintained book_count row (migration 002), not count(*) over every book. The page is joined
 * to that single row, so a page past the end still answers one row: the total with null book columns.
 * The outer order by keeps the page order, which a join alone does not promise. `$3` is the caller.
 */
export function bookPageSql(sort: readonly SortOrder<BookSortProperty>[]): string {
  return pageSql(sort, 'book_count', `select ${COLUMNS}, ${heldByCallerSql('books', '$3')} from books`, []);
}

/**
 * The page of the books matching `$4` (websearch_to_tsquery syntax, English), most relevant first,
 * with the number of matches, in one statement as the plain page. The matches are found once, through
 * the GIN index on the stored `search` vector (migrations 004 and 006: the WHERE is `search @@ query`,
 * the indexed column itself), and ranked once; the total counts them and the page sorts them, so no
 * book outside the matches is read or ranked.
 */
export function bookSearchPageSql(sort: readonly SortOrder<BookSortProperty>[]): string {
  const matches = `with matches as materialized (
      select ${COLUMNS}, ts_rank(search, query) as relevance
      from books, websearch_to_tsquery('english', $4) query where search @@ query)`;
  return `${matches} ${pageSql(
    sort,
    '(select count(*) as total from matches)',
    `select ${COLUMNS}, ${heldByCallerSql('matches', '$3')}, relevance from matches`,
    ['relevance desc'],
  )}`;
}

/** `source` (a select of the book columns) paged, joined to the one-row `counted` total. */
function pageSql(
  sort: readonly SortOrder<BookSortProperty>[],
  counted: string,
  source: string,
  leading: readonly string[],
): string {
  const orderBy = orderByClause(sort, SORT_COLUMNS, leading);
  const pageColumns = COLUMNS.split(', ').map((column) => `page.${column}`);
  // The caller's holds are asked inside the page, for its rows only: asked per joined row outside it,
  // PostgreSQL's estimate for the subquery grew past jit_above_cost and every list request paid ~13 ms of JIT.
  return `select ${pageColumns.join(', ')}, page.held_by_caller, counted.total::int as total
    from ${counted} counted
    left join lateral (${source} ${orderBy} limit $1 offset $2) page on true ${orderBy}`;
}

function bookFromRow(row: BookRow): Book {
  return {
    id: row.id,
    title: row.title,
    author: row.author,
    synopsis: row.synopsis,
    copies: row.copies,
    available: row.copies - row.held,
    waiting: row.waiting,
    heldByCaller: row.held_by_caller,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    version: row.version,
  };
}

export type UpdateOutcome =
  | { outcome: 'updated'; book: Book }
  | { outcome: 'not_found' }
  | { outcome: 'version_changed' }
  | { outcome: 'copies_below_held'; held: number };

export type DeleteOutcome = 'deleted' | 'not_found' | 'version_changed' | 'has_open_reservations';

export class BooksRepository {
  constructor(
    private readonly db: Database,
    private readonly pickupMs: number,
  ) {}

  /** `actorId`: who creates it (the audit log's actor). */
  create(fields: BookFields, actorId: string, now: Date): Promise<Book> {
    return this.db.transaction(async (tx) => {
      await actingAs(tx, actorId, now);
      const [row] = await tx.query<BookRow>(
        `insert into books (title, author, synopsis, copies) values ($1, $2, $3, $4)
         returning ${COLUMNS}, false as held_by_caller`,
        [fields.title, fields.author, fields.synopsis, fields.copies],
      );
      if (row === undefined) throw new Error('insert returned no row');
      return bookFromRow(row);
    });
  }

  findById(id: string, callerId: string): Promise<Book | undefined> {
    return this.findIn(this.db, id, callerId);
  }

  /** The books with these ids, in no particular order (missing ones are left out). */
  async findByIds(ids: readonly string[], callerId: string): Promise<Book[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<BookRow>(
      `select ${COLUMNS}, ${heldByCallerSql('books', '$2')} from books where id = any($1::uuid[])`,
      [[...ids], callerId],
    );
    return rows.map(bookFromRow);
  }

  private async findIn(db: Queryable, id: string, callerId: string): Promise<Book | undefined> {
    const [row] = await db.query<BookRow>(BOOK_BY_ID_SQL, [id, callerId]);
    return row === undefined ? undefined : bookFromRow(row);
  }

  /**
   * Replaces the fields under the book's row lock, only while the book is still at `expectedVersion`
   * (when given: the version an If-Match was compared with) and has at least as many copies as are held
   * or lent (the books_held_within_copies check would refuse fewer too). One conditional statement
   * decides both, so of two writers that read the same version only the first succeeds; the reason is
   * read only when it changed nothing, the version first (a failed precondition comes before a
   * conflict). More copies go to the queue at once.
   */
  update(
    id: string,
    fields: BookFields,
    callerId: string,
    now: Date,
    expectedVersion?: number,
  ): Promise<UpdateOutcome> {
    return this.db.transaction(async (tx) => {
      await actingAs(tx, callerId, now);
      if (!(await lockBook(tx, id))) return { outcome: 'not_found' };
      await settleBook(tx, id, now, this.pickupMs);
      const updated = await tx.query(
        `update books set title = $2, author = $3, synopsis = $4, copies = $5, updated_at = now()
         where id = $1 and ($6::integer is null or version = $6) and held <= $5 returning id`,
        [id, fields.title, fields.author, fields.synopsis, fields.copies, expectedVersion ?? null],
      );
      if (updated.length === 0) {
        const [row] = await tx.query<{ held: number; version: number }>(
          'select held, version from books where id = $1',
          [id],
        );
        if (expectedVersion !== undefined && row?.version !== expectedVersion) {
          return { outcome: 'version_changed' };
        }
        return { outcome: 'copies_below_held', held: row?.held ?? 0 };
      }
      await settleBook(tx, id, now, this.pickupMs);
      const book = await this.findIn(tx, id, callerId);
      if (book === undefined) throw new Error('a book updated just now was not found');
      return { outcome: 'updated', book };
    });
  }

  /** A page of all books, or with `search` of the books matching it, most relevant first. */
  async page(
    request: PageRequest<BookSortProperty>,
    callerId: string,
    search?: string,
  ): Promise<{ items: Book[]; total: number }> {
    const params = [request.size, request.page * request.size, callerId];
    const rows =
      search === undefined
        ? await this.db.query<PageRow>(bookPageSql(request.sort), params)
        : await this.db.query<PageRow>(bookSearchPageSql(request.sort), [...params, search]);
    const items: Book[] = [];
    for (const row of rows) if (row.id !== null) items.push(bookFromRow(row));
    return { items, total: rows[0]?.total ?? 0 };
  }

  /**
   * Deletes the book unless it has open reservations (after expiring overdue ones), and only while it
   * is still at `expectedVersion` when one is given; like `update`, one conditional statement decides.
   * Every reservation write takes the same row lock first, so none can slip in between.
   */
  deleteUnlessOpenlyReserved(
    id: string,
    actorId: string,
    now: Date,
    expectedVersion?: number,
  ): Promise<DeleteOutcome> {
    return this.db.transaction(async (tx) => {
      await actingAs(tx, actorId, now);
      if (!(await lockBook(tx, id))) return 'not_found';
      await settleBook(tx, id, now, this.pickupMs);
      const deleted = await tx.query(
        `delete from books where id = $1 and ($2::integer is null or version = $2)
         and held + waiting = 0 returning id`,
        [id, expectedVersion ?? null],
      );
      if (deleted.length > 0) return 'deleted';
      const [row] = await tx.query<{ version: number }>('select version from books where id = $1', [id]);
      if (expectedVersion !== undefined && row?.version !== expectedVersion) return 'version_changed';
      return 'has_open_reservations';
    });
  }
}
