import type { Database } from '../../db/database.js';
import type { AuditEvent, AuditFilter, AuditKind } from './audit-event.js';

interface AuditRow {
  id: string;
  at: Date;
  kind: AuditKind;
  actor_id: string | null;
  book_id: string;
  reservation_id: string | null;
  holder_id: string | null;
  change: Record<string, unknown>;
}

/** Reads the audit log; the database's triggers write it (see migration 008). */
export class AuditRepository {
  constructor(private readonly db: Database) {}

  /** A page of events, newest first, and how many match. */
  async page(
    filter: AuditFilter,
    page: { page: number; size: number },
  ): Promise<{ items: AuditEvent[]; total: number }> {
    const conditions: string[] = [];
    const params: unknown[] = [];
    if (filter.bookId !== undefined) {
      params.push(filter.bookId);
      conditions.push(`book_id = $${params.length}`);
    }
    if (filter.userId !== undefined) {
      params.push(filter.userId);
      conditions.push(`(holder_id = $${params.length} or actor_id = $${params.length})`);
    }
    if (filter.kind !== undefined) {
      params.push(filter.kind);
      conditions.push(`kind = $${params.length}`);
    }
    const where = conditions.length === 0 ? '' : `where ${conditions.join(' and ')}`;
    const [rows, [count]] = await Promise.all([
      this.db.query<AuditRow>(
        // Ordered by the table's bigint id (e.id), not the text column the select names `id`.
        `select e.id::text as id, at, kind, actor_id, book_id, reservation_id, holder_id, change
         from audit_events e ${where} order by e.id desc limit $${params.length + 1} offset $${params.length + 2}`,
        [...params, page.size, page.page * page.size],
      ),
      this.db.query<{ total: number }>(`select count(*)::int as total from audit_events ${where}`, params),
    ]);
    return {
      items: rows.map((row) => ({
        id: row.id,
        at: row.at,
        kind: row.kind,
        actorId: row.actor_id,
        bookId: row.book_id,
        reservationId: row.reservation_id,
        holderId: row.holder_id,
        change: row.change,
      })),
      total: count?.total ?? 0,
    };
  }
}
