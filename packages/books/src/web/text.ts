import type { Book } from '../modules/books/book.js';
import type { Reservation, ReservationStatus } from '../modules/reservations/reservation.js';

/** "2 of 3 available", with ", 3 waiting" while there is a queue. */
export function availability(book: Pick<Book, 'available' | 'copies' | 'waiting'>): string {
  const free = `${book.available} of ${book.copies} available`;
  return book.waiting > 0 ? `${free}, ${book.waiting} waiting` : free;
}

/** A moment as people read it, in UTC (the service has no idea of the reader's time zone). */
export function when(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const STATUS_WORDS: Record<ReservationStatus, string> = {
  WAITING: 'Waiting',
  READY: 'Ready for pickup',
  COLLECTED: 'Collected',
  RETURNED: 'Returned',
  CANCELLED: 'Cancelled',
  EXPIRED: 'Expired',
};

export const statusWords = (status: ReservationStatus) => STATUS_WORDS[status];

const plural = (count: number, word: string) => `${count} ${word}${count === 1 ? '' : 's'}`;

/** What the reservation means for its holder now: the queue position, the pickup deadline or the due date. */
export function reservationDetail(reservation: Reservation): string | undefined {
  if (reservation.status === 'COLLECTED' && reservation.dueAt !== null) {
    const renewals = `${plural(reservation.maxRenewals - reservation.renewals, 'renewal')} left`;
    return reservation.overdue
      ? `overdue by ${plural(reservation.daysOverdue, 'day')}, was due ${when(reservation.dueAt)}`
      : `due back ${when(reservation.dueAt)} (${renewals})`;
  }
  if (reservation.status === 'WAITING' && reservation.queuePosition !== null) {
    return `number ${reservation.queuePosition} in the queue`;
  }
  if (reservation.status === 'READY' && reservation.pickupDeadline !== null) {
    return `pick it up by ${when(reservation.pickupDeadline)}`;
  }
  return undefined;
}
