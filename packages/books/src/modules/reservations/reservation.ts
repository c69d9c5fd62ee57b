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
  /** When the loan is due back (collection + LOAN_DAYS, moved by each renewal); null before COLLECTED. */
  dueAt: Date | null;
  /** Renewals used, and the most the loan allows (MAX_RENEWALS when it was lent). */
  renewals: number;
  maxRenewals: number;
  /** A COLLECTED loan at or past its due date, as of the time it was read. */
  overdue: boolean;
  /** Days (started) since the due date while overdue: 1 during the first 24 h after it; else 0. */
  daysOverdue: number;
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
  /** Only loans (COLLECTED) at or past their due date. */
  overdue?: boolean;
}

/** A reservation holding (or waiting for) a copy: at most one per user and book. */
export const OPEN_STATUSES: readonly ReservationStatus[] = ['WAITING', 'READY', 'COLLECTED'];

/** The transitions a caller asks for; expiry and promotion are the service's own. */
export type Transition = 'cancel' | 'collect' | 'return' | 'renew';

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
  // A renewal keeps the loan COLLECTED and moves its due date (see renewalRefusal for its own rules).
  renew: { from: ['COLLECTED'], to: 'COLLECTED', by: 'owner' },
};

const DAY_MS = 86_400_000;

/** Whether a loan due at `dueAt` is overdue at `now`, and by how many started days. */
export function overdueAt(status: ReservationStatus, dueAt: Date | null, now: Date) {
  const late = status === 'COLLECTED' && dueAt !== null ? now.getTime() - dueAt.getTime() : -1;
  return late < 0
    ? { overdue: false, daysOverdue: 0 }
    : { overdue: true, daysOverdue: Math.max(1, Math.ceil(late / DAY_MS)) };
}

/** Why a COLLECTED loan cannot be renewed as far as the reservation itself tells (a queue is the book's). */
export function renewalRefusal(reservation: Reservation): 'limit' | 'overdue' | undefined {
  if (reservation.overdue) return 'overdue';
  if (reservation.renewals >= reservation.maxRenewals) return 'limit';
  return undefined;
}

/** The transitions `user` may take on `reservation` now (its hypermedia affordances). */
export function transitionsFor(user: User, reservation: Reservation): Transition[] {
  const admin = isAdmin(user);
  return (Object.keys(TRANSITIONS) as Transition[]).filter((transition) => {
    const rule = TRANSITIONS[transition];
    const permitted = admin || (rule.by === 'owner' && reservation.userId === user.id);
    if (!permitted || !rule.from.includes(reservation.status)) return false;
    return transition !== 'renew' || renewalRefusal(reservation) === undefined;
  });
}
