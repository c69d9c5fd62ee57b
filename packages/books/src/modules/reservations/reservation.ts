export type ReservationStatus = 'ACTIVE' | 'CANCELLED';

export interface Reservation {
  id: string;
  bookId: string;
  userId: string;
  status: ReservationStatus;
  reservedAt: Date;
  cancelledAt: Date | null;
}

export type ReservationSortProperty = 'reservedAt' | 'cancelledAt' | 'status';

export const DEFAULT_RESERVATION_SORT = [{ property: 'reservedAt', direction: 'desc' }] as const;

export interface ReservationFilter {
  userId?: string;
  status?: ReservationStatus;
}
