import type { PageMetadata } from '../../http/pagination.js';
import type { Book } from '../../modules/books/book.js';
import type { Reservation, ReservationStatus, Transition } from '../../modules/reservations/reservation.js';
import { html, type SafeHtml } from '../../pages/html.js';
import type { Viewer } from '../../pages/layout.js';
import { PATHS } from '../../pages/paths.js';
import { when } from '../text.js';
import { pager, reservationStatus, transitionButtons } from './components.js';

export interface ReservationRow {
  reservation: Reservation;
  /** Undefined when the book is gone (a deleted book's closed reservations go with it, so rarely). */
  book: Book | undefined;
  /** Who holds it (the admin page names people; "My reservations" does not). */
  holder?: string;
  transitions: readonly Transition[];
}

export interface ReservationsView {
  viewer: Viewer;
  rows: readonly ReservationRow[];
  metadata: PageMetadata;
  /** The page's own path and query (the pager keeps the query; the forms come back here). */
  path: string;
  query: URLSearchParams;
}

function row(view: ReservationsView, { reservation, book, holder, transitions }: ReservationRow): SafeHtml {
  const here = view.query.size === 0 ? view.path : `${view.path}?${view.query.toString()}`;
  const title =
    book === undefined
      ? html`<span>A deleted book</span>`
      : html`<a href="${PATHS.book(book.id)}">${book.title}</a>`;
  return html`<li class="card"><h2>${title}</h2>${book && html`<p class="author">by ${book.author}</p>`}${
    holder && html`<p>Reserved by <strong>${holder}</strong></p>`
  }${reservationStatus(reservation)}<p class="muted">Reserved ${when(reservation.reservedAt)}</p>${transitionButtons(view.viewer, reservation, transitions, here)}</li>`;
}

function list(view: ReservationsView, empty: string): SafeHtml {
  if (view.rows.length === 0) return html`<p class="empty">${empty}</p>`;
  return html`<ul class="cards">${view.rows.map((r) => row(view, r))}</ul>${pager(view.path, view.query, view.metadata)}`;
}

/** "My reservations": the viewer's own, newest first, each with what they may do now. */
export function myReservationsBody(view: ReservationsView): SafeHtml {
  return html`<h1>My reservations</h1>${list(view, 'You have no reservations yet. Find a book on the home page and reserve it.')}`;
}

const FILTERS: [ReservationStatus | undefined, string][] = [
  [undefined, 'All'],
  ['WAITING', 'Waiting'],
  ['READY', 'Ready for pickup'],
  ['COLLECTED', 'Collected'],
];

/** The admin's list of everyone's reservations, by status, with collect and return. */
export function adminReservationsBody(
  view: ReservationsView,
  status: ReservationStatus | undefined,
  book: Book | undefined,
): SafeHtml {
  const filters = FILTERS.map(([value, label]) => {
    const query = new URLSearchParams();
    if (value !== undefined) query.set('status', value);
    if (book !== undefined) query.set('bookId', book.id);
    const href =
      query.size === 0 ? PATHS.adminReservations : `${PATHS.adminReservations}?${query.toString()}`;
    return html`<li><a href="${href}"${value === status ? html` aria-current="true"` : ''}>${label}</a></li>`;
  });
  return html`<h1>All reservations</h1>${book && html`<p>Of <a href="${PATHS.book(book.id)}">${book.title}</a> · <a href="${PATHS.adminReservations}">all books</a></p>`}
<nav class="sort" aria-label="Status"><span>Show</span><ul>${filters}</ul></nav>${list(view, 'No reservations here.')}`;
}

/** The admin's overdue loans, longest overdue first, each with its Mark returned button. */
export function overdueLoansBody(view: ReservationsView): SafeHtml {
  return html`<h1>Overdue loans</h1><p>Loans past their due date, the longest overdue first.</p>${list(view, 'No loan is overdue.')}`;
}
