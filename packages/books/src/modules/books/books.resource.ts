import { link } from '../../http/links.js';
import type { Schemas } from '../../http/operations.js';
import type { Book } from './book.js';

export const bookPath = (id: string) => `/books/${id}`;

/** A book as HAL: its fields plus `self` and `reservations` (where to POST a reservation). */
export function bookResource(base: string, book: Book): Schemas['Book'] {
  return {
    id: book.id,
    title: book.title,
    author: book.author,
    synopsis: book.synopsis,
    createdAt: book.createdAt.toISOString(),
    updatedAt: book.updatedAt.toISOString(),
    _links: {
      self: link(base, bookPath(book.id)),
      reservations: link(base, `${bookPath(book.id)}/reservations`),
    },
  };
}
