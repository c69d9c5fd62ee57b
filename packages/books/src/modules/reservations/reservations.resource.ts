import { link } from '../../http/links.js';
import type { Schemas } from '../../http/operations.js';
import { bookPath } from '../books/books.resource.js';
import type { Reservation } from './reservation.js';

/** A reservation as HAL: its fields plus `self` and `book`. */
export function reservationResource(base: string, reservation: Reservation): Schemas['Reservation'] {
  return {
    id: reservation.id,
    bookId: reservation.bookId,
    userId: reservation.userId,
    status: reservation.status,
    reservedAt: reservation.reservedAt.toISOString(),
    cancelledAt: reservation.cancelledAt?.toISOString() ?? null,
    _links: {
      self: link(base, `${bookPath(reservation.bookId)}/reservations/${reservation.id}`),
      book: link(base, bookPath(reservation.bookId)),
    },
  };
}
