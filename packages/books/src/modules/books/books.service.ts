import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import type { PageRequest } from '../../page-request.js';
import type { PickupExpiry } from '../reservations/pickup-expiry.js';
import type { User } from '../users/user.js';
import type { Book, BookFields, BookSortProperty } from './book.js';
import type { BooksRepository } from './books.repository.js';

export function bookNotFound(id: string): AppError {
  return new AppError('not_found', 'BOOK_NOT_FOUND', `No book with id ${id}.`);
}

/** A conditional write found the book at another version than the one its precondition was checked on. */
function bookChanged(id: string): AppError {
  return new AppError(
    'precondition_failed',
    'PRECONDITION_FAILED',
    `Book ${id} changed while this request was being checked against its ETag; read it again and repeat your change on the current version.`,
  );
}

/**
 * Book rules; role checks happen before (from the contract), so every caller here is allowed. Reads
 * first expire overdue READY reservations when a deadline may have passed (`PickupExpiry`), so
 * `available` and `waiting` are current; updates and deletes settle the book's queue, so they tell it.
 */
export class BooksService {
  constructor(
    private readonly books: BooksRepository,
    private readonly expiry: PickupExpiry,
    private readonly clock: Clock,
  ) {}

  create(caller: User, fields: BookFields): Promise<Book> {
    return this.books.create(fields, caller.id, new Date(this.clock()));
  }

  async get(caller: User, id: string): Promise<Book> {
    await this.expiry.beforeRead();
    const book = await this.books.findById(id, caller.id);
    if (book === undefined) throw bookNotFound(id);
    return book;
  }

  /** The books with these ids (a list page naming the books of its rows); a deleted one is left out. */
  async getMany(caller: User, ids: readonly string[]): Promise<Map<string, Book>> {
    await this.expiry.beforeRead();
    const books = await this.books.findByIds([...new Set(ids)], caller.id);
    return new Map(books.map((book) => [book.id, book]));
  }

  /** `expectedVersion`: write only while the book is at this version (an If-Match compared with it). */
  async update(caller: User, id: string, fields: BookFields, expectedVersion?: number): Promise<Book> {
    const now = new Date(this.clock());
    const result = await this.books
      .update(id, fields, caller.id, now, expectedVersion)
      .finally(() => this.expiry.madeReady(now));
    if (result.outcome === 'not_found') throw bookNotFound(id);
    if (result.outcome === 'version_changed') throw bookChanged(id);
    if (result.outcome === 'copies_below_held') {
      throw new AppError(
        'conflict',
        'COPIES_BELOW_HELD',
        `Book ${id} has ${result.held} copies held for pickup or lent; copies cannot go below that.`,
      );
    }
    return result.book;
  }

  async list(caller: User, request: PageRequest<BookSortProperty>, search?: string) {
    await this.expiry.beforeRead();
    return this.books.page(request, caller.id, search);
  }

  async delete(caller: User, id: string, expectedVersion?: number): Promise<void> {
    const now = new Date(this.clock());
    const outcome = await this.books
      .deleteUnlessOpenlyReserved(id, caller.id, now, expectedVersion)
      .finally(() => this.expiry.madeReady(now));
    if (outcome === 'not_found') throw bookNotFound(id);
    if (outcome === 'version_changed') throw bookChanged(id);
    if (outcome === 'has_open_reservations') {
      throw new AppError(
        'conflict',
        'BOOK_HAS_OPEN_RESERVATIONS',
        `Book ${id} has WAITING, READY or COLLECTED reservations; finish or cancel them before deleting the book.`,
      );
    }
  }
}
