import type { Clock } from '../../clock.js';
import type { MailSender } from './mail-sender.js';
import type { ClaimedNotice } from './notice.js';
import { composeNoticeMail } from './notice-mail.js';
import type { NoticesRepository } from './notices.repository.js';

export interface DeliverySettings {
  /** The mails' From (MAIL_FROM). */
  from: string;
  /** Wait before the first retry; each further one waits twice as long (NOTICE_RETRY_BASE). */
  retryBaseMs: number;
  /** The longest wait between attempts (NOTICE_RETRY_MAX). */
  retryMaxMs: number;
  /** Attempts before a notice is marked failed (NOTICE_MAX_ATTEMPTS). */
  maxAttempts: number;
  /** How long a claim holds a notice; a worker that died is retaken after it (NOTICE_LEASE). */
  leaseMs: number;
  /** Notices claimed at once (and sent concurrently). */
  batchSize: number;
}

export interface DeliveryRound {
  claimed: number;
  sent: number;
  retried: number;
  failed: number;
}

/** The wait before attempt `attempts + 1`: base, 2 × base, 4 × base, ... at most `max`. */
export function backoffMs(attempts: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempts - 1));
}

function describe(error: unknown): string {
  if (error instanceof Error) {
    const response = (error as Error & { response?: string }).response;
    return response === undefined ? error.message : `${error.message} (${response})`;
  }
  return String(error);
}

/**
 * Delivers the outbox: claims due notices, sends each, marks it sent only after the server accepted it.
 * So a worker that dies between the send and the mark leaves the notice pending, and after its lease
 * another attempt sends it again with the same Message-ID: the one case a receiver may get a notice twice,
 * and can drop the repeat by its Message-ID. A worker that dies before the send loses nothing either.
 */
export class NoticeDelivery {
  constructor(
    private readonly notices: NoticesRepository,
    private readonly sender: MailSender,
    private readonly clock: Clock,
    private readonly settings: DeliverySettings,
  ) {}

  /** One round: claims a batch of due notices and attempts each once. */
  async deliverDue(): Promise<DeliveryRound> {
    const now = this.clock();
    const batch = await this.notices.claim(
      new Date(now),
      new Date(now + this.settings.leaseMs),
      this.settings.batchSize,
    );
    const outcomes = await Promise.all(batch.map((notice) => this.attempt(notice)));
    return {
      claimed: batch.length,
      sent: outcomes.filter((o) => o === 'sent').length,
      retried: outcomes.filter((o) => o === 'retried').length,
      failed: outcomes.filter((o) => o === 'failed').length,
    };
  }

  private async attempt(notice: ClaimedNotice): Promise<'sent' | 'retried' | 'failed'> {
    const { email, name } = notice.recipient;
    if (email === null || email === '') {
      await this.notices.markAttemptFailed(notice, 'the recipient has no email address', null);
      return 'failed';
    }
    try {
      await this.sender.send(
        composeNoticeMail({ ...notice, recipient: { email, name } }, this.settings.from),
      );
    } catch (error) {
      const { retryBaseMs, retryMaxMs, maxAttempts } = this.settings;
      const retryAt =
        notice.attempts >= maxAttempts
          ? null
          : new Date(this.clock() + backoffMs(notice.attempts, retryBaseMs, retryMaxMs));
      await this.notices.markAttemptFailed(notice, describe(error), retryAt);
      return retryAt === null ? 'failed' : 'retried';
    }
    await this.notices.markSent(notice.id, new Date(this.clock()));
    return 'sent';
  }
}
