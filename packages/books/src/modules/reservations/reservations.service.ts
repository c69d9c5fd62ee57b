import { hasSqlState, SqlState } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { PageRequest } from '../../page-request.js';
import { bookNotFound } from '../books/books.service.js';
import { isAdmin, type User } from '../users/user.js';
import type { Reservation, ReservationFilter, ReservationSortProperty } from './reservation.js';
import type { ReservationsRepository } from './reservations.repository.js';

function reservationNotFound(bookId: string, reservationId: string): AppError {
  return new AppError(
    'not_found',
    'RESERVATION_NOT_FOUND',
    `No reservation ${reservationId} for book ${bookId}.`,
  );
}

/** Reservation rules: ownership, the ACTIVE → CANCELLED transition, one ACTIVE reservation per user and book. */
export class ReservationsService {
  constructor(private readonly reservations: ReservationsRepository) {}

  async reserve(user: User, bookId: string): Promise<Reservation> {
    try {
      const reservation = await this.reservations.create(bookId, user.id);
      if (reservation === undefined) throw bookNotFound(bookId);
      return reservation;
    } catch (error) {
      if (hasSqlState(error, SqlState.uniqueViolation)) {
        throw new AppError(
          'conflict',
          'RESERVATION_ALREADY_ACTIVE',
          `You already hold an ACTIVE reservation of book ${bookId}; cancel it before reserving again.`,
        );
      }
      // The book was deleted between the insert's lookup and its foreign-key check.
      if (hasSqlState(error, SqlState.foreignKeyViolation)) throw bookNotFound(bookId);
      throw error;
    }
  }

  /** 404 when missing or under another book; 403 when someone else's and the caller is not an admin. */
  async get(user: User, bookId: string, reservationId: string): Promise<Reservation> {
    const reservation = await this.reservations.findById(reservationId);
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

  async cancel(user: User, bookId: string, reservationId: string): Promise<Reservation> {
    await this.get(user, bookId, reservationId);
    const cancelled = await this.reservations.cancel(reservationId);
    if (cancelled === undefined) {
      throw new AppError(
        'conflict',
        'RESERVATION_ALREADY_CANCELLED',
        `Reservation ${reservationId} is already CANCELLED.`,
      );
    }
    return cancelled;
  }

  /** Users see their own reservations; admins see everyone's, optionally one user's. */
  list(user: User, filter: ReservationFilter, request: PageRequest<ReservationSortProperty>) {
    if (!isAdmin(user)) {
      if (filter.userId !== undefined && filter.userId !== user.id) {
        throw new AppError(
          'forbidden',
          'USER_FILTER_FORBIDDEN',
          'Only an admin may list the reservations of another user; omit userId to list your own.',
        );
      }
      return this.reservations.page({ ...filter, userId: user.id }, request);
    }
    return this.reservations.page(filter, request);
  }
}
