import type { Schemas } from '../contract/schemas.js';
import { link } from '../http/links.js';
import type { Book } from '../modules/books/book.js';

export const bookPath = (id: string) => `/books/${id}`;

/**
 * A book as HAL: its fields plus `self`, `reservations`, and `reserve` (the same href, to POST) while
 * the caller holds no open reservation of it.
 */
export function bookResource(base: string, book: Book): Schemas['Book'] {
  const reservations = link(base, `${bookPath(book.id)}/reservations`);
  return {
    id: book.id,
    title: book.title,
    author: book.author,
    synopsis: book.synopsis,
    copies: book.copies,
    available: book.available,
    waiting: book.waiting,
    createdAt: book.createdAt.toISOString(),
    updatedAt: book.updatedAt.toISOString(),
    _links: {
      self: link(base, bookPath(book.id)),
      reservations,
      ...(book.heldByCaller ? {} : { reserve: reservations }),
    },
  };
}
