import type { PageMetadata } from '../../http/pagination.js';
import { NOTICE_KINDS, type Notice, type NoticeKind } from '../../modules/notices/notice.js';
import type { NoticeMail } from '../../modules/notices/notice-mail.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { csrfField, type Viewer } from '../../pages/layout.js';
import { PATHS } from '../../pages/paths.js';
import { when } from '../text.js';
import { pager, postButton } from './components.js';

/** Every kind (the Record is complete by its type) in the words of the pages. */
export const NOTICE_KIND_WORDS: Record<NoticeKind, string> = {
  'pickup.ready': 'A copy is ready for pickup',
  'pickup.reminder': 'The pickup deadline is a day away',
  'pickup.expired': 'A copy was not picked up in time',
  'loan.due_soon': 'A loan is due soon',
  'loan.overdue': 'A loan is overdue',
};

/** The form field of a kind on the account page: one checkbox each, checked while the kind is on. */
export const kindField = (kind: NoticeKind) => `notice-${kind}`;

export interface AccountView {
  viewer: Viewer;
  disabledKinds: readonly NoticeKind[];
  calendarUrl: string;
  /** Where the development mailbox is, when there is one. */
  mailbox: string | undefined;
}

/** The account page: which notices to get by email, and the calendar feed's secret address. */
export function accountBody(view: AccountView): SafeHtml {
  const boxes = NOTICE_KINDS.map((kind) => {
    const id = kindField(kind);
    const on = !view.disabledKinds.includes(kind);
    return html`<li><input type="checkbox" id="${id}" name="${id}" value="on"${on ? html` checked` : ''}> <label for="${id}">${NOTICE_KIND_WORDS[kind]}</label></li>`;
  });
  const mailbox =
    view.mailbox === undefined
      ? ''
      : html`<p>No SMTP server is set (<code>SMTP_URL</code>), so notices go to the <a href="${view.mailbox}">development mailbox</a>.</p>`;
  return html`<h1>Account</h1>
<section aria-labelledby="notices-heading"><h2 id="notices-heading">Notices by email</h2>
<form method="post" action="${PATHS.accountNotices}">${csrfField(view.viewer.csrf)}<fieldset><legend>Email me when</legend><ul class="checks">${boxes}</ul></fieldset>
<button type="submit">Save</button></form>${mailbox}</section>
<section aria-labelledby="calendar-heading"><h2 id="calendar-heading">Calendar</h2>
<p>Subscribe to this address in your calendar application to see your pickup deadlines and due dates. Keep it to yourself: anyone with it can read them.</p>
<p><label class="block" for="calendar-url">Calendar address</label><input id="calendar-url" class="wide" type="text" readonly value="${view.calendarUrl}"></p>
${postButton(view.viewer, PATHS.accountCalendar, 'New address (the old one stops working)', PATHS.account, 'secondary')}</section>`;
}

export interface FailedNoticesView {
  viewer: Viewer;
  notices: readonly Notice[];
  /** Names of the recipients, by id. */
  people: ReadonlyMap<string, string>;
  metadata: PageMetadata;
}

/** The admin's failed notices: why each failed, and a button to send it again. */
export function failedNoticesBody(view: FailedNoticesView): SafeHtml {
  const rows = view.notices.map(
    (notice) =>
      html`<tr><td>${when(notice.createdAt)}</td><td>${NOTICE_KIND_WORDS[notice.kind]}</td><td>${view.people.get(notice.userId) ?? notice.userId}</td><td><a href="${PATHS.book(notice.bookId)}">${notice.bookTitle}</a></td><td>${String(notice.attempts)}</td><td>${notice.lastError ?? ''}</td><td>${postButton(view.viewer, PATHS.resendNotice(notice.id), 'Resend', PATHS.failedNotices)}</td></tr>`,
  );
  const table =
    view.notices.length === 0
      ? html`<p class="empty">No failed notices.</p>`
      : html`<div class="table-scroll"><table class="notices"><caption>Notices every attempt failed for, newest first</caption>
<thead><tr><th scope="col">Queued</th><th scope="col">Notice</th><th scope="col">To</th><th scope="col">Book</th><th scope="col">Attempts</th><th scope="col">Last error</th><th scope="col">Action</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
  return html`<h1>Failed notices</h1>${table}${pager(PATHS.failedNotices, new URLSearchParams(), view.metadata)}`;
}

/** The development mailbox: the mails the service would have sent, newest first. */
export function mailboxBody(mails: readonly (NoticeMail & { sentAt: Date | null })[]): SafeHtml {
  const items = mails.map(
    (mail) =>
      html`<article class="mail"><h2>${mail.subject}</h2><dl><dt>To</dt><dd>${mail.to}</dd><dt>From</dt><dd>${mail.from}</dd><dt>Sent</dt><dd>${mail.sentAt === null ? '' : when(mail.sentAt)}</dd><dt>Message-ID</dt><dd><code>${mail.messageId}</code></dd></dl><pre>${mail.text}</pre></article>`,
  );
  return html`<h1>Development mailbox</h1>
<p>No SMTP server is set (<code>SMTP_URL</code>), so the service keeps its notices here instead of sending them. This page exists only outside production.</p>
${mails.length === 0 ? html`<p class="empty">No mail yet.</p>` : items}`;
}
