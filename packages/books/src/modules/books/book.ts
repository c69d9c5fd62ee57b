import type { Schemas } from '../../contract/schemas.js';
import type { SortPropertyOf } from '../../page-request.js';

/** The fields an admin sets on a book, as the contract's BookInput declares them (copies filled in by its default). */
export type BookFields = Required<Schemas['BookInput']>;

export interface Book extends BookFields {
  id: string;
  /** Copies neither held for pickup nor lent. */
  available: number;
  /** Length of the queue. */
  waiting: number;
  /** Whether the user the book was read for holds an open reservation of it. */
  heldByCaller: boolean;
  createdAt: Date;
  updatedAt: Date;
  /** The row version (migration 005): one more at every write of the book, its counts included. */
  version: number;
}

/** The properties the book list sorts by (the contract's BookSortOrder). */
export type BookSortProperty = SortPropertyOf<Schemas['BookSortOrder']>;
