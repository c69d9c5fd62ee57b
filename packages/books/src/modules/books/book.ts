import type { Schemas } from '../../http/operations.js';
import type { SortPropertyOf } from '../../page-request.js';

/** The fields an admin sets on a book, exactly as the contract's BookInput declares them. */
export type BookFields = Schemas['BookInput'];

export interface Book extends BookFields {
  id: string;
  createdAt: Date;
  updatedAt: Date;
}

/** The properties the book list sorts by (the contract's BookSortOrder). */
export type BookSortProperty = SortPropertyOf<Schemas['BookSortOrder']>;
