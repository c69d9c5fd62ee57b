import { AppError } from '../../errors.js';
import type { PageRequest } from '../../page-request.js';
import type { Book, BookFields, BookSortProperty } from './book.js';
import type { BooksRepository } from './books.repository.js';

export function bookNotFound(id: string): AppError {
  return new AppError('not_found', 'BOOK_NOT_FOUND', `No book with id ${id}.`);
}

/** Book rules; role checks happen before (from the contract), so every caller here is allowed. */
export class BooksService {
  constructor(private readonly books: BooksRepository) {}

  create(fields: BookFields): Promise<Book> {
    return this.books.create(fields);
  }

  async get(id: string): Promise<Book> {
    const book = await this.books.findById(id);
    if (book === undefined) throw bookNotFound(id);
    return book;
  }

  async update(id: string, fields: BookFields): Promise<Book> {
    const book = await this.books.update(id, fields);
    if (book === undefined) throw bookNotFound(id);
    return book;
  }

  list(request: PageRequest<BookSortProperty>) {
    return this.books.page(request);
  }

  async delete(id: string): Promise<void> {
    const outcome = await this.books.deleteUnlessActivelyReserved(id);
    if (outcome === 'not_found') throw bookNotFound(id);
    if (outcome === 'has_active_reservations') {
      throw new AppError(
        'conflict',
        'BOOK_HAS_ACTIVE_RESERVATIONS',
        `Book ${id} has ACTIVE reservations; cancel them before deleting the book.`,
      );
    }
  }
}
