import type { Schemas } from '../../contract/schemas.js';

/** The contract's NoticeKind: why a user is told something. */
export type NoticeKind = Schemas['NoticeKind'];
/** The contract's NoticeStatus. */
export type NoticeStatus = Schemas['NoticeStatus'];

export const NOTICE_KINDS: readonly NoticeKind[] = [
  'pickup.ready',
  'pickup.reminder',
  'pickup.expired',
  'loan.due_soon',
  'loan.overdue',
];

/** One notice of the outbox (migration 010). */
export interface Notice {
  id: string;
  kind: NoticeKind;
  /** The recipient: the holder of the reservation. */
  userId: string;
  reservationId: string;
  bookId: string;
  bookTitle: string;
  /** The pickup deadline (pickup.*) or the due date (loan.*) the notice is about. */
  subjectAt: Date;
  createdAt: Date;
  status: NoticeStatus;
  /** Attempts started (a claim counts one, so a worker that died mid-attempt used one). */
  attempts: number;
  nextAttemptAt: Date;
  sentAt: Date | null;
  lastError: string | null;
}

/** A notice a worker claimed, with its recipient's address as the users table has it now. */
export interface ClaimedNotice extends Notice {
  recipient: { email: string | null; name: string | null };
  /** The lease the claim holds, which the worker's marks name so a retaken claim is not overwritten. */
  claimedUntil: Date;
}

/** A user's notice settings: the kinds they turned off, and their calendar feed's token generation. */
export interface NoticeSettings {
  disabledKinds: NoticeKind[];
  calendarGeneration: number;
}

/** The `Message-ID` of a notice's mail: the same at every attempt, so a receiver can drop a repeat. */
export function messageIdOf(noticeId: string): string {
  return `<notice-${noticeId}@books.local>`;
}
