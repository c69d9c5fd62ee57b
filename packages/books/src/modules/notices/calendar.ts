import { createHmac, timingSafeEqual } from 'node:crypto';
import icalGenerator from 'ical-generator';

/**
 * The secret of a user's calendar feed: the user id (32 hex digits) and an HMAC under the session secret
 * of that id and the user's token generation. Nothing secret is stored: rotating moves the generation on,
 * so every earlier token stops matching; a copy of the database holds no working address.
 */
export class CalendarTokens {
  constructor(private readonly secret: string) {}

  tokenFor(userId: string, generation: number): string {
    return `${userId.replaceAll('-', '')}${this.mac(userId, generation)}`;
  }

  /** The user a token names, before it is checked; undefined when it is not shaped like one. */
  userOf(token: string): string | undefined {
    const hex = /^([0-9a-f]{32})[A-Za-z0-9_-]{43}$/.exec(token)?.[1];
    if (hex === undefined) return undefined;
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
  }

  /** True when `token` is the user's token of this generation (compared in constant time). */
  matches(token: string, userId: string, generation: number): boolean {
    const expected = Buffer.from(this.tokenFor(userId, generation));
    const given = Buffer.from(token);
    return expected.length === given.length && timingSafeEqual(expected, given);
  }

  private mac(userId: string, generation: number): string {
    return createHmac('sha256', this.secret).update(`calendar:${userId}:${generation}`).digest('base64url');
  }
}

export interface CalendarEntry {
  reservationId: string;
  bookTitle: string;
  kind: 'pickup' | 'due';
  at: Date;
}

/** The feed: one all-day-free event per deadline, at the deadline, with a stable UID per reservation and kind. */
export function calendarFeed(entries: readonly CalendarEntry[], now: Date): string {
  const calendar = icalGenerator({ name: 'Library: pickups and due dates', prodId: '//books//notices//EN' });
  for (const entry of entries) {
    calendar.createEvent({
      id: `${entry.kind}-${entry.reservationId}@books.local`,
      start: entry.at,
      end: new Date(entry.at.getTime() + 30 * 60_000),
      stamp: now,
      summary: entry.kind === 'pickup' ? `Pick up "${entry.bookTitle}"` : `Return "${entry.bookTitle}"`,
      description:
        entry.kind === 'pickup'
          ? `The copy held for you goes to the next reader after this time.`
          : `The loan is due back; renew it on My reservations if nobody waits for it.`,
    });
  }
  return calendar.toString();
}
