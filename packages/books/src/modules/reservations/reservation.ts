import type { Schemas } from '../../http/operations.js';
import type { SortPropertyOf } from '../../page-request.js';

/** The contract's ReservationStatus. */
export type ReservationStatus = Schemas['ReservationStatus'];

export interface Reservation {
  id: string;
  bookId: string;
  userId: string;
  status: ReservationStatus;
  reservedAt: Date;
  cancelledAt: Date | null;
}

/** The properties the reservation list sorts by (the contract's ReservationSortOrder). */
export type ReservationSortProperty = SortPropertyOf<Schemas['ReservationSortOrder']>;

export interface ReservationFilter {
  userId?: string;
  status?: ReservationStatus;
}
