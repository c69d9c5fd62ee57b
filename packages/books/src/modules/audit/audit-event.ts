import type { Schemas } from '../../contract/schemas.js';

/** The contract's AuditKind: what changed. */
export type AuditKind = Schemas['AuditKind'];

/** One recorded state change (migration 008): written by the database, never changed. */
export interface AuditEvent {
  /** Increasing in the order the events were recorded. */
  id: string;
  at: Date;
  kind: AuditKind;
  /** The user who made the change; null for the system (promotion, expiry, overdue). */
  actorId: string | null;
  bookId: string;
  reservationId: string | null;
  /** Whose reservation changed; null for book events. */
  holderId: string | null;
  /** What changed: `from`/`to` states, due dates, book fields. */
  change: Record<string, unknown>;
}

export interface AuditFilter {
  bookId?: string;
  /** Events the user made or whose reservation they are about. */
  userId?: string;
  kind?: AuditKind;
}
