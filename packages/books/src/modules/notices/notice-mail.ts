import type { NoticeKind } from './notice.js';
import { messageIdOf } from './notice.js';

/** A composed mail: what a sender hands to SMTP (or the development mailbox). */
export interface NoticeMail {
  messageId: string;
  from: string;
  to: string;
  subject: string;
  text: string;
  /** When the notice was queued: the mail's Date, the same at every attempt. */
  date: Date;
}

/** What a mail is composed from: the notice and its recipient. */
export interface NoticeMailInput {
  id: string;
  kind: NoticeKind;
  bookTitle: string;
  subjectAt: Date;
  createdAt: Date;
  recipient: { email: string; name: string | null };
}

/** `2026-03-05 09:30 UTC`, as the web front shows times. */
function utc(at: Date): string {
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

const TEXTS: Record<NoticeKind, (title: string, at: string) => { subject: string; body: string }> = {
  'pickup.ready': (title, at) => ({
    subject: `Ready for pickup: ${title}`,
    body: `A copy of "${title}" is held for you. Please pick it up by ${at}; after that it goes to the next reader.`,
  }),
  'pickup.reminder': (title, at) => ({
    subject: `Pick up by tomorrow: ${title}`,
    body: `The copy of "${title}" held for you is waiting until ${at}, a day from now. After that it goes to the next reader.`,
  }),
  'pickup.expired': (title, at) => ({
    subject: `Not picked up: ${title}`,
    body: `The copy of "${title}" held for you was not picked up by ${at}, so your reservation has expired. You may reserve the book again.`,
  }),
  'loan.due_soon': (title, at) => ({
    subject: `Due soon: ${title}`,
    body: `"${title}" is due back on ${at}. Renew it on My reservations if nobody is waiting for it, or bring it back.`,
  }),
  'loan.overdue': (title, at) => ({
    subject: `Overdue: ${title}`,
    body: `"${title}" was due back on ${at} and is now overdue. Please bring it back.`,
  }),
};

/** The mail of a notice: the same text, subject, Date and Message-ID at every attempt. */
export function composeNoticeMail(notice: NoticeMailInput, from: string): NoticeMail {
  const { subject, body } = TEXTS[notice.kind](notice.bookTitle, utc(notice.subjectAt));
  const greeting = `Hello ${notice.recipient.name ?? notice.recipient.email},`;
  return {
    messageId: messageIdOf(notice.id),
    from,
    to: notice.recipient.email,
    subject,
    text: `${greeting}\n\n${body}\n\n-- \nThe library (you can turn these notices off on your account page)\n`,
    date: notice.createdAt,
  };
}
