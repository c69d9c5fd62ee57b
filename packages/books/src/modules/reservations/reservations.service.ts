import type { Clock } from '../../clock.js';
import { hasSqlState, SqlState } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { PageRequest } from '../../page-request.js';
import { bookNotFound } from '../books/books.service.js';
import { isAdmin, type User } from '../users/user.js';
import type { PickupExpiry } from './pickup-expiry.js';
import {
  type Reservation,
  type ReservationFilter,
  type ReservationSortProperty,
  type ReservationStatus,
  TRANSITIONS,
  type Transition,
} from './reservation.js';
import type { RenewalRefusal, ReservationsRepository } from './reservations.repository.js';

function reservationNotFound(bookId: string, reservationId: string): AppError {
  return new AppError(
    'not_found',
    'RESERVATION_NOT_FOUND',
    `No reservation ${reservationId} for book ${bookId}.`,
  );
}

function illegalTransition(reservationId: string, from: ReservationStatus, transition: Transition): AppError {
  const { to, from: allowed } = TRANSITIONS[transition];
  return new AppError(
    'conflict',
    `ILLEGAL_TRANSITION_${from}_TO_${to}`,
    `Reservation ${reservationId} is ${from}; only a ${allowed.join(' or ')} reservation can become ${to}.`,
  );
}

const RENEWAL_REFUSALS: Record<RenewalRefusal, { code: string; detail: string }> = {
  limit: {
    code: 'RENEWAL_LIMIT_REACHED',
    detail: 'has been renewed as often as its loan allows; return the book by its due date',
  },
  overdue: {
    code: 'RENEWAL_LOAN_OVERDUE',
    detail: 'is overdue, and an overdue loan is not renewed; return the book',
  },
  waited_for: {
    code: 'RENEWAL_BOOK_WAITED_FOR',
    detail: 'is not renewed while someone waits for the book; return it by its due date',
  },
};

function renewalRefused(reservationId: string, reason: RenewalRefusal): AppError {
  const { code, detail } = RENEWAL_REFUSALS[reason];
  return new AppError('conflict', code, `The loan of reservation ${reservationId} ${detail}.`);
}

function notOnLoan(reservationId: string, current: ReservationStatus): AppError {
  return new AppError(
    'conflict',
    'RENEWAL_NOT_ON_LOAN',
    `Reservation ${reservationId} is ${current}; only a COLLECTED reservation (a loan) can be renewed.`,
  );
}

function reservationChanged(reservationId: string): AppError {
  return new AppError(
    'precondition_failed',
    'PRECONDITION_FAILED',
    `Reservation ${reservationId} changed while this request was being checked against its ETag; read it again and decide on its current state.`,
  );
}

/**
 * Reservation rules: ownership, the state machine, one open reservation per user and book. Every read
 * first expires overdue READY reservations when a deadline may have passed (`PickupExpiry`), so no
 * reader sees one past its pickup deadline; every write that settles a book tells it when.
 */
export class ReservationsService {
  constructor(
    private readonly reservations: ReservationsRepository,
    private readonly expiry: PickupExpiry,
    private readonly clock: Clock,
  ) {}

  private now(): Date {
    return new Date(this.clock());
  }

  async reserve(user: User, bookId: string): Promise<Reservation> {
    const now = this.now();
    try {
      const reservation = await this.reservations.reserve(bookId, user.id, now);
      if (reservation === undefined) throw bookNotFound(bookId);
      return reservation;
    } catch (error) {
      if (hasSqlState(error, SqlState.uniqueViolation)) {
        throw new AppError(
          'conflict',
          'RESERVATION_ALREADY_OPEN',
          `You already hold an open (WAITING, READY or COLLECTED) reservation of book ${bookId}; cancel or finish it before reserving again.`,
        );
      }
      // The book was deleted between the lock and the foreign-key check.
      if (hasSqlState(error, SqlState.foreignKeyViolation)) throw bookNotFound(bookId);
      throw error;
    } finally {
      this.expiry.madeReady(now);
    }
  }

  /** 404 when missing or under another book; 403 when someone else's and the caller is not an admin. */
  async get(user: User, bookId: string, reservationId: string): Promise<Reservation> {
    await this.expiry.beforeRead();
    const reservation = await this.reservations.findById(reservationId, this.now());
    if (reservation === undefined || reservation.bookId !== bookId) {
      throw reservationNotFound(bookId, reservationId);
    }
    if (reservation.userId !== user.id && !isAdmin(user)) {
      throw new AppError(
        'forbidden',
        'NOT_RESERVATION_OWNER',
        `Reservation ${reservationId} belongs to another user; only its owner or an admin may use it.`,
      );
    }
    return reservation;
  }

  /**
   * Cancel and renew (owner or admin), collect and return (admin; the contract's guard has checked the role).
   * `expectedVersion`: apply only while the reservation is at this version (an If-Match compared with it).
   */
  async apply(
    user: User,
    bookId: string,
    reservationId: string,
    transition: Transition,
    expectedVersion?: number,
  ): Promise<Reservation> {
    await this.get(user, bookId, reservationId);
    const now = this.now();
    const result = await this.reservations
      .transition(user.id, bookId, reservationId, transition, now, expectedVersion)
      .finally(() => this.expiry.madeReady(now));
    if (result.outcome === 'not_found') throw reservationNotFound(bookId, reservationId);
    if (result.outcome === 'version_changed') throw reservationChanged(reservationId);
    if (result.outcome === 'refused') throw renewalRefused(reservationId, result.reason);
    if (result.outcome === 'illegal') {
      throw transition === 'renew'
        ? notOnLoan(reservationId, result.current)
        : illegalTransition(reservationId, result.current, transition);
    }
    return result.reservation;
  }

  /** The overdue sweep: records the loans that became overdue since the last run (see recordOverdue). */
  recordOverdue(): Promise<number> {
    return this.reservations.recordOverdue(this.now());
  }

  /** Users see their own reservations; admins see everyone's, optionally one user's. */
  async list(user: User, filter: ReservationFilter, request: PageRequest<ReservationSortProperty>) {
    if (!isAdmin(user) && filter.userId !== undefined && filter.userId !== user.id) {
      throw new AppError(
        'forbidden',
        'USER_FILTER_FORBIDDEN',
        'Only an admin may list the reservations of another user; omit userId to list your own.',
      );
    }
    await this.expiry.beforeRead();
    return this.reservations.page(
      isAdmin(user) ? filter : { ...filter, userId: user.id },
      request,
      this.now(),
    );
  }
}
