import type { Queryable } from '../../db/database.js';
import { orderByClause } from '../../db/order-by.js';
import type { PageRequest } from '../../page-request.js';
import type {
  Reservation,
  ReservationFilter,
  ReservationSortProperty,
  ReservationStatus,
} from './reservation.js';

interface ReservationRow {
  id: string;
  book_id: string;
  user_id: string;
  status: ReservationStatus;
  reserved_at: Date;
  cancelled_at: Date | null;
}

const COLUMNS = 'id, book_id, user_id, status, reserved_at, cancelled_at';
const SORT_COLUMNS: Record<ReservationSortProperty, string> = {
  reservedAt: 'reserved_at',
  cancelledAt: 'cancelled_at',
  status: 'status',
};

function reservationFromRow(row: ReservationRow): Reservation {
  return {
    id: row.id,
    bookId: row.book_id,
    userId: row.user_id,
    status: row.status,
    reservedAt: row.reserved_at,
    cancelledAt: row.cancelled_at,
  };
}

export class ReservationsRepository {
  constructor(private readonly db: Queryable) {}

  /**
   * Inserts an ACTIVE reservation if the book exists (undefined otherwise). A second ACTIVE one for the
   * same user and book fails on the partial unique index with SQLSTATE 23505.
   */
  async create(bookId: string, userId: string): Promise<Reservation | undefined> {
    const [row] = await this.db.query<ReservationRow>(
      `insert into reservations (book_id, user_id) select id, $2 from books where id = $1 returning ${COLUMNS}`,
      [bookId, userId],
    );
    return row === undefined ? undefined : reservationFromRow(row);
  }

  async findById(id: string): Promise<Reservation | undefined> {
    const [row] = await this.db.query<ReservationRow>(`select ${COLUMNS} from reservations where id = $1`, [
      id,
    ]);
    return row === undefined ? undefined : reservationFromRow(row);
  }

  /** Cancels an ACTIVE reservation; undefined when it is not ACTIVE (any more). */
  async cancel(id: string): Promise<Reservation | undefined> {
    const [row] = await this.db.query<ReservationRow>(
      `update reservations set status = 'CANCELLED', cancelled_at = now()
       where id = $1 and status = 'ACTIVE' returning ${COLUMNS}`,
      [id],
    );
    return row === undefined ? undefined : reservationFromRow(row);
  }

  async page(
    filter: ReservationFilter,
    request: PageRequest<ReservationSortProperty>,
  ): Promise<{ items: Reservation[]; total: number }> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.userId !== undefined) {
      params.push(filter.userId);
      conditions.push(`user_id = $${params.length}`);
    }
    if (filter.status !== undefined) {
      params.push(filter.status);
      conditions.push(`status = $${params.length}`);
    }
    const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`;
    const order = orderByClause(request.sort, SORT_COLUMNS);
    const [rows, [count]] = await Promise.all([
      this.db.query<ReservationRow>(
        `select ${COLUMNS} from reservations ${where} ${order} limit $${params.length + 1} offset $${params.length + 2}`,
        [...params, request.size, request.page * request.size],
      ),
      this.db.query<{ total: number }>(`select count(*)::int as total from reservations ${where}`, params),
    ]);
    return { items: rows.map(reservationFromRow), total: count?.total ?? 0 };
  }
}
