import type { Schemas } from '../../contract/schemas.js';
import type { SortPropertyOf } from '../../page-request.js';
import { isAdmin, type User } from '../users/user.js';

/** The contract's ReservationStatus. */
export type ReservationStatus = Schemas['ReservationStatus'];

export interface Reservation {
  id: string;
  bookId: string;
  userId: string;
  status: ReservationStatus;
  /** 1-based place in the book's queue while WAITING, else null. */
  queuePosition: number | null;
  reservedAt: Date;
  readyAt: Date | null;
  pickupDeadline: Date | null;
  collectedAt: Date | null;
  returnedAt: Date | null;
  cancelledAt: Date | null;
  expiredAt: Date | null;
  /** The row version (migration 005): one more at every write of the reservation. */
  version: number;
}

/** The properties the reservation list sorts by (the contract's ReservationSortOrder). */
export type ReservationSortProperty = SortPropertyOf<Schemas['ReservationSortOrder']>;

export interface ReservationFilter {
  userId?: string;
  /** Only this book's reservations (the web front's book page; the API does not offer it). */
  bookId?: string;
  status?: ReservationStatus;
}

/** A reservation holding (or waiting for) a copy: at most one per user and book. */
export const OPEN_STATUSES: readonly ReservationStatus[] = ['WAITING', 'READY', 'COLLECTED'];

/** The transitions a caller asks for; expiry and promotion are the service's own. */
export type Transition = 'cancel' | 'collect' | 'return';

interface TransitionRule {
  from: readonly ReservationStatus[];
  to: ReservationStatus;
  /** Who may ask: the owner (or an admin), or an admin only. */
  by: 'owner' | 'admin';
}

export const TRANSITIONS: Record<Transition, TransitionRule> = {
  cancel: { from: ['WAITING', 'READY'], to: 'CANCELLED', by: 'owner' },
  collect: { from: ['READY'], to: 'COLLECTED', by: 'admin' },
  return: { from: ['COLLECTED'], to: 'RETURNED', by: 'admin' },
};

/** The transitions `user` may take on `reservation` now (its hypermedia affordances). */
export function transitionsFor(user: User, reservation: Reservation): Transition[] {
  const admin = isAdmin(user);
  return (Object.keys(TRANSITIONS) as Transition[]).filter((transition) => {
    const rule = TRANSITIONS[transition];
    const permitted = admin || (rule.by === 'owner' && reservation.userId === user.id);
    return permitted && rule.from.includes(reservation.status);
  });
}
