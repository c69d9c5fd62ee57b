import type { Database } from '../../db/database.js';
import type { ClaimedNotice, Notice, NoticeKind, NoticeSettings, NoticeStatus } from './notice.js';

interface NoticeRow {
  id: string;
  kind: NoticeKind;
  user_id: string;
  reservation_id: string;
  book_id: string;
  book_title: string;
  subject_at: Date;
  created_at: Date;
  status: NoticeStatus;
  attempts: number;
  next_attempt_at: Date;
  sent_at: Date | null;
  last_error: string | null;
}

const COLUMNS = `n.id, n.kind, n.user_id, n.reservation_id, n.book_id, n.book_title, n.subject_at, n.created_at,
  n.status, n.attempts, n.next_attempt_at, n.sent_at, n.last_error`;

function toNotice(row: NoticeRow): Notice {
  return {
    id: row.id,
    kind: row.kind,
    userId: row.user_id,
    reservationId: row.reservation_id,
    bookId: row.book_id,
    bookTitle: row.book_title,
    subjectAt: row.subject_at,
    createdAt: row.created_at,
    status: row.status,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    sentAt: row.sent_at,
    lastError: row.last_error,
  };
}

/** Whether the user turned this kind off: a notice of it is recorded `skipped` instead of pending. */
const STATUS_FOR_HOLDER = `case when exists (select 1 from notice_settings s
  where s.user_id = r.user_id and k.kind = any (s.disabled_kinds)) then 'skipped' else 'pending' end`;

/**
 * The notice outbox (migration 010). State changes queue their notices by trigger; this repository
 * queues the reminders time causes, hands pending notices to the delivery worker and records how each
 * attempt went.
 */
export class NoticesRepository {
  constructor(private readonly db: Database) {}

  /**
   * Queues the reminders due at `now`: a pickup deadline within a day, a loan due within `dueSoonMs`.
   * One statement; a reminder already queued for that reservation, kind and date is left alone, so
   * running it again, or on another replica at the same time, queues nothing twice. Returns how many.
   */
  async queueReminders(now: Date, dueSoonMs: number): Promise<number> {
    // Each half reads its partial index (READY by deadline, COLLECTED by due date) over a day or
    // DUE_SOON_DAYS; what is already queued is skipped before the insert, and the unique key decides races.
    const rows = await this.db.query<{ id: string }>(
      `insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, status,
                            next_attempt_at)
       select k.kind, r.user_id, r.id, r.book_id, b.title, k.subject_at, $1, ${STATUS_FOR_HOLDER}, $1
       from (select 'pickup.reminder' as kind, r.id, r.pickup_deadline as subject_at from reservations r
             where r.status = 'READY' and r.pickup_deadline > $1 and r.pickup_deadline <= $2
               -- Not for a copy held for a day or less: its "ready" notice names a deadline that close.
               and r.ready_at < r.pickup_deadline - interval '1 day'
             union all
             select 'loan.due_soon', r.id, r.due_at from reservations r
             where r.status = 'COLLECTED' and r.due_at > $1 and r.due_at <= $3) k
       join reservations r on r.id = k.id
       join books b on b.id = r.book_id
       where not exists (select 1 from notices n
                         where n.reservation_id = k.id and n.kind = k.kind and n.subject_at = k.subject_at)
       on conflict (reservation_id, kind, subject_at) do nothing
       returning id`,
      [now, new Date(now.getTime() + 86_400_000), new Date(now.getTime() + dueSoonMs)],
    );
    return rows.length;
  }

  /**
   * Claims up to `limit` pending notices due at `now` for a worker, until `leaseUntil`: one statement,
   * `for update skip locked`, so concurrent workers never claim the same notice; a claim whose lease
   * ran out (its worker died) is taken again. Each claim counts one attempt.
   */
  async claim(now: Date, leaseUntil: Date, limit: number): Promise<ClaimedNotice[]> {
    const rows = await this.db.query<
      NoticeRow & { email: string | null; name: string | null; claimed_until: Date }
    >(
      `with claimed as (
         update notices n set claimed_until = $2, attempts = n.attempts + 1
         from (select id from notices
               where status = 'pending' and next_attempt_at <= $1 and (claimed_until is null or claimed_until <= $1)
               order by next_attempt_at, id limit $3
               for update skip locked) due
         where n.id = due.id
         returning ${COLUMNS}, n.claimed_until)
       select n.*, u.email, u.name from claimed n left join users u on u.id = n.user_id`,
      [now, leaseUntil, limit],
    );
    return rows.map((row) => ({
      ...toNotice(row),
      recipient: { email: row.email, name: row.name },
      claimedUntil: row.claimed_until,
    }));
  }

  /** The SMTP server took the mail: sent, whoever holds the claim now. */
  async markSent(id: string, at: Date): Promise<void> {
    await this.db.query(
      `update notices set status = 'sent', sent_at = $2, claimed_until = null, last_error = null
       where id = $1 and status = 'pending'`,
      [id, at],
    );
  }

  /**
   * An attempt failed: try again at `retryAt`, or give up (`failed`) when `retryAt` is null. Only while
   * this worker's claim still holds the notice (another worker may have retaken and sent it).
   */
  async markAttemptFailed(notice: ClaimedNotice, error: string, retryAt: Date | null): Promise<void> {
    await this.db.query(
      `update notices set status = $3, next_attempt_at = coalesce($4, next_attempt_at), claimed_until = null,
              last_error = $5
       where id = $1 and status = 'pending' and claimed_until = $2`,
      [
        notice.id,
        notice.claimedUntil,
        retryAt === null ? 'failed' : 'pending',
        retryAt,
        error.slice(0, 1000),
      ],
    );
  }

  async find(id: string): Promise<Notice | undefined> {
    const [row] = await this.db.query<NoticeRow>(`select ${COLUMNS} from notices n where n.id = $1`, [id]);
    return row === undefined ? undefined : toNotice(row);
  }

  /** Pending again with its attempts reset (an admin's resend); undefined when it is pending already or missing. */
  async requeue(id: string, now: Date): Promise<Notice | undefined> {
    const [row] = await this.db.query<NoticeRow>(
      `update notices n set status = 'pending', attempts = 0, next_attempt_at = $2, claimed_until = null,
              sent_at = null, last_error = null
       where n.id = $1 and n.status <> 'pending'
       returning ${COLUMNS}`,
      [id, now],
    );
    return row === undefined ? undefined : toNotice(row);
  }

  /** A page of notices, newest first, and how many match. */
  async page(
    filter: { status?: NoticeStatus; userId?: string },
    page: { page: number; size: number },
  ): Promise<{ items: Notice[]; total: number }> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.status !== undefined) {
      params.push(filter.status);
      conditions.push(`n.status = $${params.length}`);
    }
    if (filter.userId !== undefined) {
      params.push(filter.userId);
      conditions.push(`n.user_id = $${params.length}`);
    }
    const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`;
    const [rows, [count]] = await Promise.all([
      this.db.query<NoticeRow>(
        `select ${COLUMNS} from notices n ${where} order by n.created_at desc, n.id
         limit $${params.length + 1} offset $${params.length + 2}`,
        [...params, page.size, page.page * page.size],
      ),
      this.db.query<{ total: number }>(`select count(*)::int as total from notices n ${where}`, params),
    ]);
    return { items: rows.map(toNotice), total: count?.total ?? 0 };
  }

  async settings(userId: string): Promise<NoticeSettings> {
    const [row] = await this.db.query<{ disabled_kinds: NoticeKind[]; calendar_generation: number }>(
      'select disabled_kinds, calendar_generation from notice_settings where user_id = $1',
      [userId],
    );
    return {
      disabledKinds: row?.disabled_kinds ?? [],
      calendarGeneration: row?.calendar_generation ?? 0,
    };
  }

  async setDisabledKinds(userId: string, kinds: readonly NoticeKind[]): Promise<void> {
    await this.db.query(
      `insert into notice_settings (user_id, disabled_kinds) values ($1, $2)
       on conflict (user_id) do update set disabled_kinds = excluded.disabled_kinds`,
      [userId, kinds],
    );
  }

  /** Moves the user's calendar token on (every earlier token stops working); returns the new generation. */
  async rotateCalendar(userId: string): Promise<number> {
    const [row] = await this.db.query<{ calendar_generation: number }>(
      `insert into notice_settings (user_id, calendar_generation) values ($1, 1)
       on conflict (user_id) do update set calendar_generation = notice_settings.calendar_generation + 1
       returning calendar_generation`,
      [userId],
    );
    if (row === undefined) throw new Error('the settings upsert returned no row');
    return row.calendar_generation;
  }

  /** What the user's calendar shows: READY reservations (pickup deadline) and loans (due date). */
  async calendarEntries(
    userId: string,
  ): Promise<{ reservationId: string; bookTitle: string; kind: 'pickup' | 'due'; at: Date }[]> {
    const rows = await this.db.query<{ id: string; title: string; status: string; at: Date }>(
      `select r.id, b.title, r.status, case when r.status = 'READY' then r.pickup_deadline else r.due_at end as at
       from reservations r join books b on b.id = r.book_id
       where r.user_id = $1 and r.status in ('READY', 'COLLECTED')
       order by at`,
      [userId],
    );
    return rows.map((row) => ({
      reservationId: row.id,
      bookTitle: row.title,
      kind: row.status === 'READY' ? 'pickup' : 'due',
      at: row.at,
    }));
  }

  /** The latest notices sent, with their recipients (the development mailbox shows them). */
  async latestSent(limit: number): Promise<ClaimedNotice[]> {
    const rows = await this.db.query<NoticeRow & { email: string | null; name: string | null }>(
      `select ${COLUMNS}, u.email, u.name from notices n left join users u on u.id = n.user_id
       where n.status = 'sent'
       -- Ties (one round sends many at one time) in an order that does not depend on random ids.
       order by n.sent_at desc, n.created_at desc, n.book_title, u.email, n.kind limit $1`,
      [limit],
    );
    return rows.map((row) => ({
      ...toNotice(row),
      recipient: { email: row.email, name: row.name },
      claimedUntil: row.sent_at ?? row.created_at,
    }));
  }

  /** How many notices are in each status (the metrics' gauge). */
  async countByStatus(): Promise<Record<string, number>> {
    const rows = await this.db.query<{ status: string; n: number }>(
      'select status, count(*)::int as n from notices group by status',
    );
    return Object.fromEntries(rows.map((row) => [row.status, row.n]));
  }
}
