import type { Schemas } from '../contract/schemas.js';
import { type Link, link } from '../http/links.js';
import { type Reservation, transitionsFor } from '../modules/reservations/reservation.js';
import type { User } from '../modules/users/user.js';
import { bookPath } from './books.resource.js';

const iso = (date: Date | null) => date?.toISOString() ?? null;

/** A reservation as HAL: its fields, `self`, `book`, and the transitions `caller` may take now. */
export function reservationResource(
  base: string,
  reservation: Reservation,
  caller: User,
): Schemas['Reservation'] {
  const self = link(base, `${bookPath(reservation.bookId)}/reservations/${reservation.id}`);
  const affordances: Partial<Record<'cancel' | 'collect' | 'return' | 'renew', Link>> = {};
  for (const transition of transitionsFor(caller, reservation)) {
    affordances[transition] = transition === 'cancel' ? self : { href: `${self.href}/${transition}` };
  }
  return {
    id: reservation.id,
    bookId: reservation.bookId,
    userId: reservation.userId,
    status: reservation.status,
    queuePosition: reservation.queuePosition,
    reservedAt: reservation.reservedAt.toISOString(),
    readyAt: iso(reservation.readyAt),
    pickupDeadline: iso(reservation.pickupDeadline),
    collectedAt: iso(reservation.collectedAt),
    returnedAt: iso(reservation.returnedAt),
    cancelledAt: iso(reservation.cancelledAt),
    expiredAt: iso(reservation.expiredAt),
    dueAt: iso(reservation.dueAt),
    renewals: reservation.renewals,
    maxRenewals: reservation.maxRenewals,
    overdue: reservation.overdue,
    daysOverdue: reservation.daysOverdue,
    _links: { self, book: link(base, bookPath(reservation.bookId)), ...affordances },
  };
}
