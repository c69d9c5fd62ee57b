import type { PageMetadata } from '../../http/pagination.js';
import type { AuditEvent, AuditKind } from '../../modules/audit/audit-event.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { PATHS } from '../../pages/paths.js';
import { when } from '../text.js';
import { pager } from './components.js';

export interface AuditView {
  events: readonly AuditEvent[];
  /** Names of the users the events name (actors and holders), by id. */
  people: ReadonlyMap<string, string>;
  /** Titles of the books still there, by id. */
  titles: ReadonlyMap<string, string>;
  kind: AuditKind | undefined;
  metadata: PageMetadata;
  query: URLSearchParams;
}

/** Every kind (the Record is complete by its type) in the words of the page. */
const KIND_WORDS: Record<AuditKind, string> = {
  'book.created': 'Book added',
  'book.updated': 'Book edited',
  'book.deleted': 'Book deleted',
  'reservation.reserved': 'Reserved',
  'reservation.promoted': 'Ready for pickup',
  'reservation.cancelled': 'Cancelled',
  'reservation.collected': 'Collected (loan starts)',
  'reservation.returned': 'Returned',
  'reservation.expired': 'Pickup expired',
  'loan.renewed': 'Loan renewed',
  'loan.overdue': 'Loan overdue',
};

const CHANGE_WORDS: Record<string, string> = {
  pickupDeadline: 'pickup by',
  dueAt: 'due',
  fromDueAt: 'was due',
  toDueAt: 'now due',
  renewals: 'renewals',
};

/** A value of a change as people read it: moments as the pages show them. */
function valueWords(value: unknown): string {
  if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value)) return when(new Date(value));
  if (value !== null && typeof value === 'object' && 'from' in value && 'to' in value) {
    return `${String(value.from)} → ${String(value.to)}`;
  }
  return String(value);
}

/** The change as a short line: the state change first, then due dates, counts and edited fields. */
function changeWords(change: Record<string, unknown>): string {
  const { from, to, ...rest } = change;
  const state = to === undefined ? [] : [from === undefined ? String(to) : `${String(from)} → ${String(to)}`];
  const details = Object.entries(rest)
    .sort(([a], [b]) => (a === 'fromDueAt' ? -1 : b === 'fromDueAt' ? 1 : a.localeCompare(b)))
    .map(([name, value]) => `${CHANGE_WORDS[name] ?? name}: ${valueWords(value)}`);
  return [...state, ...details].join('; ');
}

function row(view: AuditView, event: AuditEvent): SafeHtml {
  const who = event.actorId === null ? 'System' : (view.people.get(event.actorId) ?? event.actorId);
  const title = view.titles.get(event.bookId);
  const book =
    title === undefined
      ? html`<span>A deleted book</span>`
      : html`<a href="${PATHS.book(event.bookId)}">${title}</a>`;
  const holder = event.holderId === null ? '' : (view.people.get(event.holderId) ?? event.holderId);
  return html`<tr><td>${when(event.at)}</td><td>${KIND_WORDS[event.kind]}</td><td>${who}</td><td>${book}</td><td>${holder}</td><td>${changeWords(event.change)}</td></tr>`;
}

/** The admin's audit page: every state change, newest first, filtered by kind (and book or user by link). */
export function auditBody(view: AuditView): SafeHtml {
  const options = (Object.keys(KIND_WORDS) as AuditKind[]).map(
    (kind) =>
      html`<option value="${kind}"${kind === view.kind ? html` selected` : ''}>${KIND_WORDS[kind]}</option>`,
  );
  const kept = [...view.query.entries()]
    .filter(([name]) => name !== 'kind')
    .map(([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`);
  const table =
    view.events.length === 0
      ? html`<p class="empty">No events here.</p>`
      : html`<div class="table-scroll"><table class="audit"><caption>State changes, newest first</caption>
<thead><tr><th scope="col">When</th><th scope="col">What</th><th scope="col">Who</th><th scope="col">Book</th><th scope="col">Holder</th><th scope="col">Change</th></tr></thead>
<tbody>${view.events.map((event) => row(view, event))}</tbody></table></div>`;
  return html`<h1>Audit log</h1>
<form method="get" action="${PATHS.audit}" class="search">${kept}<label for="kind">Kind</label><select id="kind" name="kind"><option value="">All kinds</option>${options}</select><button type="submit" class="secondary">Show</button></form>
${table}${pager(PATHS.audit, view.query, view.metadata)}`;
}
