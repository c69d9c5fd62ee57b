import type { Database, Queryable } from '../../db/database.js';
import { orderByClause } from '../../db/order-by.js';
import type { PageRequest } from '../../page-request.js';
import { actingAs } from '../audit/acting.js';
import type { ExpiryProbeResult } from './pickup-expiry.js';
import {
  OPEN_STATUSES,
  overdueAt,
  type Reservation,
  type ReservationFilter,
  type ReservationSortProperty,
  type ReservationStatus,
  renewalRefusal,
  TRANSITIONS,
  type Transition,
} from './reservation.js';

interface ReservationRow {
  id: string;
  book_id: string;
  user_id: string;
  status: ReservationStatus;
  queue_position: number | null;
  reserved_at: Date;
  ready_at: Date | null;
  pickup_deadline: Date | null;
  collected_at: Date | null;
  returned_at: Date | null;
  cancelled_at: Date | null;
  expired_at: Date | null;
  due_at: Date | null;
  renewals: number;
  max_renewals: number;
  version: number;
}

const sqlList = (statuses: readonly ReservationStatus[]) =>
  statuses.map((status) => `'${status}'`).join(', ');

/** The open statuses as an SQL list, for the statements of other tables that ask about open reservations. */
export const OPEN_STATUSES_SQL = sqlList(OPEN_STATUSES);

// The queue position is computed, never stored: the count of WAITING reservations of the book up to
// this one in admission order, so positions are 1..n without gaps whatever leaves the queue.
const SELECT_RESERVATIONS = `select r.id, r.book_id, r.user_id, r.status, r.reserved_at, r.ready_at,
  r.pickup_deadline, r.collected_at, r.returned_at, r.cancelled_at, r.expired_at, r.due_at, r.renewals,
  r.max_renewals, r.version,
  case when r.status = 'WAITING' then (select count(*)::int from reservations w
    where w.book_id = r.book_id and w.status = 'WAITING' and w.queue_order <= r.queue_order) end as queue_position
  from reservations r`;

const SORT_COLUMNS: Record<ReservationSortProperty, string> = {
  reservedAt: 'r.reserved_at',
  cancelledAt: 'r.cancelled_at',
  status: 'r.status',
  dueAt: 'r.due_at',
};

/** How long a loan runs (LOAN_DAYS) and how often it may be renewed (MAX_RENEWALS). */
export interface LoanRules {
  loanMs: number;
  maxRenewals: number;
}

/**
 * Each transition a caller asks for, as one conditional update: `$1` the reservation, `$2` its book,
 * `$3` the time, `$4` the expected version (null: any); `extra` are the transition's own parameters.
 */
interface TransitionStatement {
  sql: string;
  extra: (now: Date, rules: LoanRules) => unknown[];
}

const conditional = (from: readonly ReservationStatus[], set: string, also = '') =>
  `update reservations set ${set}
   where id = $1 and book_id = $2 and status in (${sqlList(from)}) ${also}
     and ($4::integer is null or version = $4) returning id`;

const TRANSITION_STATEMENTS: Record<Transition, TransitionStatement> = {
  cancel: {
    sql: conditional(TRANSITIONS.cancel.from, `status = 'CANCELLED', cancelled_at = $3`),
    extra: () => [],
  },
  // Collecting starts the loan: due LOAN_DAYS later, renewable MAX_RENEWALS times (as set now).
  collect: {
    sql: conditional(
      TRANSITIONS.collect.from,
      `status = 'COLLECTED', collected_at = $3, due_at = $5, max_renewals = $6`,
    ),
    extra: (now, rules) => [new Date(now.getTime() + rules.loanMs), rules.maxRenewals],
  },
  return: {
    sql: conditional(TRANSITIONS.return.from, `status = 'RETURNED', returned_at = $3`),
    extra: () => [],
  },
  // The loan's own rules (the same as migration 007's trigger): renewals left, not yet due, no queue.
  renew: {
    sql: conditional(
      TRANSITIONS.renew.from,
      `due_at = due_at + $5::double precision * interval '1 millisecond', renewals = renewals + 1, renewed_at = $3`,
      `and renewals < max_renewals and due_at > $3 and (select waiting from books where id = $2) = 0`,
    ),
    extra: (_now, rules) => [rules.loanMs],
  },
};

/** A reservation as read at `now` (which decides whether its loan is overdue). */
function reservationFromRow(row: ReservationRow, now: Date): Reservation {
  return {
    id: row.id,
    bookId: row.book_id,
    userId: row.user_id,
    status: row.status,
    queuePosition: row.queue_position,
    reservedAt: row.reserved_at,
    readyAt: row.ready_at,
    pickupDeadline: row.pickup_deadline,
    collectedAt: row.collected_at,
    returnedAt: row.returned_at,
    cancelledAt: row.cancelled_at,
    expiredAt: row.expired_at,
    dueAt: row.due_at,
    renewals: row.renewals,
    maxRenewals: row.max_renewals,
    ...overdueAt(row.status, row.due_at, now),
    version: row.version,
  };
}

/**
 * Brings one book's reservations up to `now`: READY reservations past their deadline become EXPIRED,
 * then the free copies (copies - held) go to the first WAITING reservations in queue order. The caller
 * holds the book's row lock, so no other transaction decides about this book's copies meanwhile; the
 * books_held_within_copies check refuses any statement that would hold more copies than there are.
 */
export async function settleBook(tx: Queryable, bookId: string, now: Date, pickupMs: number): Promise<void> {
  await tx.query(
    `update reservations set status = 'EXPIRED', expired_at = pickup_deadline
     where book_id = $1 and status = 'READY' and pickup_deadline <= $2`,
    [bookId, now],
  );
  await tx.query(
    `update reservations set status = 'READY', ready_at = $2, pickup_deadline = $3
     where id in (select id from reservations where book_id = $1 and status = 'WAITING' order by queue_order
                  limit (select greatest(copies - held, 0) from books where id = $1))`,
    [bookId, now, new Date(now.getTime() + pickupMs)],
  );
}

/** Takes the book's row lock for the rest of the transaction; false when there is no such book. */
export async function lockBook(tx: Queryable, bookId: string): Promise<boolean> {
  const rows = await tx.query('select 1 from books where id = $1 for update', [bookId]);
  return rows.length > 0;
}

export type TransitionOutcome =
  | { outcome: 'done'; reservation: Reservation }
  | { outcome: 'not_found' }
  | { outcome: 'version_changed' }
  | { outcome: 'illegal'; current: ReservationStatus }
  /** A renewal the loan's rules refuse: no renewals left, overdue, or someone waits for the book. */
  | { outcome: 'refused'; reason: RenewalRefusal };

export type RenewalRefusal = 'limit' | 'overdue' | 'waited_for';

/** Every change of a book's reservations runs under that book's row lock, then settles the book. */
export class ReservationsRepository {
  constructor(
    private readonly db: Database,
    private readonly pickupMs: number,
    private readonly loans: LoanRules,
  ) {}

  /**
   * Admits a reservation to the end of the book's queue, then settles the book: with a free copy the new
   * reservation is promoted to READY at once. Undefined when the book does not exist. A second open
   * reservation of the same user and book fails on the partial unique index with SQLSTATE 23505.
   */
  reserve(bookId: string, userId: string, now: Date): Promise<Reservation | undefined> {
    return this.db.transaction(async (tx) => {
      await actingAs(tx, userId, now);
      if (!(await lockBook(tx, bookId))) return undefined;
      await settleBook(tx, bookId, now, this.pickupMs);
      const [created] = await tx.query<{ id: string }>(
        `insert into reservations (book_id, user_id, status, reserved_at) values ($1, $2, 'WAITING', $3) returning id`,
        [bookId, userId, now],
      );
      if (created === undefined) throw new Error('insert returned no row');
      await settleBook(tx, bookId, now, this.pickupMs);
      return this.findIn(tx, created.id, now);
    });
  }

  /**
   * Applies a caller's transition if the reservation's current state allows it (and, when
   * `expectedVersion` is given, while the reservation is still at that version), then settles the book.
   * `actorId`: who asks (the audit log's actor).
   */
  transition(
    actorId: string,
    bookId: string,
    reservationId: string,
    transition: Transition,
    now: Date,
    expectedVersion?: number,
  ): Promise<TransitionOutcome> {
    return this.db.transaction(async (tx) => {
      await actingAs(tx, actorId, now);
      if (!(await lockBook(tx, bookId))) return { outcome: 'not_found' };
      await settleBook(tx, bookId, now, this.pickupMs);
      const statement = TRANSITION_STATEMENTS[transition];
      const changed = await tx.query(statement.sql, [
        reservationId,
        bookId,
        now,
        expectedVersion ?? null,
        ...statement.extra(now, this.loans),
      ]);
      if (changed.length === 0)
        return this.whyUnchanged(tx, bookId, reservationId, transition, now, expectedVersion);
      await settleBook(tx, bookId, now, this.pickupMs);
      const reservation = await this.findIn(tx, reservationId, now);
      if (reservation === undefined) throw new Error('a reservation changed just now was not found');
      return { outcome: 'done', reservation };
    });
  }

  /**
   * Expires every READY reservation past its deadline (and promotes the next in each queue), one book
   * per transaction, books in the order their deadlines passed (so the audit log's order is the same in
   * every run), and tells the earliest deadline still ahead. The probe is one statement over the
   * partial index of READY reservations by deadline, so with nothing overdue it is the only one.
   */
  async expireOverdue(now: Date): Promise<ExpiryProbeResult> {
    const [probe] = await this.db.query<{ overdue: string[]; next_deadline: Date | null }>(
      `select array(select book_id::text from reservations
                    where status = 'READY' and pickup_deadline <= $1
                    group by book_id order by min(pickup_deadline), min(queue_order)) as overdue,
              (select min(pickup_deadline) from reservations
               where status = 'READY' and pickup_deadline > $1) as next_deadline`,
      [now],
    );
    const overdue = probe?.overdue ?? [];
    for (const bookId of overdue) {
      await this.db.transaction(async (tx) => {
        await actingAs(tx, null, now);
        if (await lockBook(tx, bookId)) await settleBook(tx, bookId, now, this.pickupMs);
      });
    }
    return { settled: overdue.length, nextDeadline: probe?.next_deadline ?? null };
  }

  /**
   * Records the loans past their due date as overdue (the system's `loan.overdue` audit events; later
   * their notices); returns how many. Whether a loan is overdue is read from its due date, not from this.
   */
  recordOverdue(now: Date): Promise<number> {
    return this.db.transaction(async (tx) => {
      await actingAs(tx, null, now);
      const recorded = await tx.query(
        `update reservations set overdue_at = due_at
         where status = 'COLLECTED' and overdue_at is null and due_at <= $1 returning id`,
        [now],
      );
      return recorded.length;
    });
  }

  /** Why a transition's conditional update changed nothing (in its transaction, under the book's lock). */
  private async whyUnchanged(
    tx: Queryable,
    bookId: string,
    reservationId: string,
    transition: Transition,
    now: Date,
    expectedVersion: number | undefined,
  ): Promise<TransitionOutcome> {
    const current = await this.findIn(tx, reservationId, now);
    if (current === undefined || current.bookId !== bookId) return { outcome: 'not_found' };
    if (expectedVersion !== undefined && current.version !== expectedVersion) {
      return { outcome: 'version_changed' };
    }
    if (transition !== 'renew' || current.status !== 'COLLECTED') {
      return { outcome: 'illegal', current: current.status };
    }
    const refusal = renewalRefusal(current);
    return { outcome: 'refused', reason: refusal ?? 'waited_for' };
  }

  /** The reservation as of `now` (overdue or not). */
  findById(id: string, now: Date): Promise<Reservation | undefined> {
    return this.findIn(this.db, id, now);
  }

  private async findIn(db: Queryable, id: string, now: Date): Promise<Reservation | undefined> {
    const [row] = await db.query<ReservationRow>(`${SELECT_RESERVATIONS} where r.id = $1`, [id]);
    return row === undefined ? undefined : reservationFromRow(row, now);
  }

  /** A page of reservations as of `now` (which also decides which loans `filter.overdue` keeps). */
  async page(
    filter: ReservationFilter,
    request: PageRequest<ReservationSortProperty>,
    now: Date,
  ): Promise<{ items: Reservation[]; total: number }> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.userId !== undefined) {
      params.push(filter.userId);
      conditions.push(`r.user_id = $${params.length}`);
    }
    if (filter.bookId !== undefined) {
      params.push(filter.bookId);
      conditions.push(`r.book_id = $${params.length}`);
    }
    if (filter.status !== undefined) {
      params.push(filter.status);
      conditions.push(`r.status = $${params.length}`);
    }
    if (filter.overdue !== undefined) {
      params.push(now);
      const overdue = `r.status = 'COLLECTED' and r.due_at <= $${params.length}`;
      conditions.push(filter.overdue ? overdue : `not (${overdue})`);
    }
    const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`;
    const order = orderByClause(request.sort, SORT_COLUMNS);
    const [rows, [count]] = await Promise.all([
      this.db.query<ReservationRow>(
        `${SELECT_RESERVATIONS} ${where} ${order} limit $${params.length + 1} offset $${params.length + 2}`,
        [...params, request.size, request.page * request.size],
      ),
      this.db.query<{ total: number }>(`select count(*)::int as total from reservations r ${where}`, params),
    ]);
    return { items: rows.map((row) => reservationFromRow(row, now)), total: count?.total ?? 0 };
  }
}
