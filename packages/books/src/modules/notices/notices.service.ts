import type { Clock } from '../../clock.js';
import { AppError } from '../../errors.js';
import { type CalendarTokens, calendarFeed } from './calendar.js';
import type { Notice, NoticeKind, NoticeStatus } from './notice.js';
import { composeNoticeMail, type NoticeMail } from './notice-mail.js';
import type { NoticesRepository } from './notices.repository.js';

/** A user's settings as the account page and the API show them. */
export interface UserNoticeSettings {
  disabledKinds: NoticeKind[];
  /** The secret of their calendar feed's address. */
  calendarToken: string;
}

/** Notices for admins (the outbox, resend), for users (their settings, their calendar feed), and the sweep's reminders. */
export class NoticesService {
  constructor(
    private readonly notices: NoticesRepository,
    private readonly tokens: CalendarTokens,
    private readonly clock: Clock,
    private readonly dueSoonMs: number,
  ) {}

  list(
    filter: { status?: NoticeStatus },
    page: { page: number; size: number },
  ): Promise<{ items: Notice[]; total: number }> {
    return this.notices.page(filter, page);
  }

  /** A failed (or sent, or skipped) notice queued again; 404 when missing, 409 while still pending. */
  async resend(id: string): Promise<Notice> {
    const requeued = await this.notices.requeue(id, new Date(this.clock()));
    if (requeued !== undefined) return requeued;
    if ((await this.notices.find(id)) === undefined) {
      throw new AppError('not_found', 'NOTICE_NOT_FOUND', `There is no notice ${id}.`);
    }
    throw new AppError(
      'conflict',
      'NOTICE_ALREADY_PENDING',
      `Notice ${id} is still pending: the delivery worker will send it.`,
    );
  }

  async settings(userId: string): Promise<UserNoticeSettings> {
    const { disabledKinds, calendarGeneration } = await this.notices.settings(userId);
    return { disabledKinds, calendarToken: this.tokens.tokenFor(userId, calendarGeneration) };
  }

  async updateSettings(userId: string, disabledKinds: readonly NoticeKind[]): Promise<UserNoticeSettings> {
    await this.notices.setDisabledKinds(userId, [...new Set(disabledKinds)]);
    return this.settings(userId);
  }

  /** A new calendar token; the earlier ones stop working. */
  async rotateCalendarToken(userId: string): Promise<UserNoticeSettings> {
    await this.notices.rotateCalendar(userId);
    return this.settings(userId);
  }

  /** The feed a token opens; 404 for a token that is wrong or was rotated away (the same answer for both). */
  async calendarFeed(token: string): Promise<string> {
    const userId = this.tokens.userOf(token);
    if (userId !== undefined) {
      const { calendarGeneration } = await this.notices.settings(userId);
      if (this.tokens.matches(token, userId, calendarGeneration)) {
        return calendarFeed(await this.notices.calendarEntries(userId), new Date(this.clock()));
      }
    }
    throw new AppError('not_found', 'CALENDAR_NOT_FOUND', 'There is no calendar at this address.');
  }

  /** The sweep: queues the reminders due now (pickup tomorrow, loan due soon); returns how many. */
  queueReminders(): Promise<number> {
    return this.notices.queueReminders(new Date(this.clock()), this.dueSoonMs);
  }

  /** The development mailbox: the latest mails, composed as they were sent. */
  async mailbox(from: string, limit = 100): Promise<(NoticeMail & { sentAt: Date | null })[]> {
    const sent = await this.notices.latestSent(limit);
    return sent.flatMap((notice) => {
      const { email, name } = notice.recipient;
      if (email === null) return [];
      return [
        { ...composeNoticeMail({ ...notice, recipient: { email, name } }, from), sentAt: notice.sentAt },
      ];
    });
  }
}
