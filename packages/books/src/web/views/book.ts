import type { Book } from '../../modules/books/book.js';
import type { Reservation, Transition } from '../../modules/reservations/reservation.js';
import { html, type SafeHtml } from '../../pages/html.js';
import type { Viewer } from '../../pages/layout.js';
import { PATHS } from '../../pages/paths.js';
import { availability, when } from '../text.js';
import { postButton, reservationStatus, transitionButtons } from './components.js';

export interface BookView {
  viewer: Viewer;
  book: Book;
  /** The viewer's latest reservation of this book (the open one, when there is one). */
  reservation: Reservation | undefined;
  /** What the viewer may do with it now. */
  transitions: readonly Transition[];
}

function ownReservation({ viewer, book, reservation, transitions }: BookView): SafeHtml {
  const here = PATHS.book(book.id);
  const reserve = book.heldByCaller
    ? ''
    : postButton(
        viewer,
        PATHS.reserve(book.id),
        book.available > 0 ? 'Reserve' : 'Join the waiting list',
        here,
      );
  if (reservation === undefined) {
    return html`<section class="panel" aria-labelledby="yours"><h2 id="yours">Your reservation</h2>
<p>You have not reserved this book.</p>${reserve}</section>`;
  }
  return html`<section class="panel" aria-labelledby="yours"><h2 id="yours">Your reservation</h2>
${reservationStatus(reservation)}<p class="muted">Reserved ${when(reservation.reservedAt)}</p>${transitionButtons(viewer, reservation, transitions, here)}${reserve}</section>`;
}

function adminTools({ viewer, book }: BookView): SafeHtml | undefined {
  if (!viewer.admin) return undefined;
  const reservations = `${PATHS.adminReservations}?bookId=${encodeURIComponent(book.id)}`;
  return html`<section class="panel" aria-labelledby="admin"><h2 id="admin">Admin</h2>
<p><a class="button secondary" href="${PATHS.editBook(book.id)}">Edit book</a> <a href="${reservations}">Reservations of this book</a></p>
${postButton(viewer, PATHS.deleteBook(book.id), 'Delete book', PATHS.book(book.id), 'danger')}</section>`;
}

/** A book's page: details, availability, the viewer's own reservation and what they may do. */
export function bookBody(view: BookView): SafeHtml {
  const { book } = view;
  return html`<p><a href="${PATHS.home}">← All books</a></p>
<article class="book"><h1>${book.title}</h1><p class="author">by ${book.author}</p>
<p class="availability${book.available > 0 ? ' free' : ''}">${availability(book)}</p>
<h2>Synopsis</h2><p class="synopsis">${book.synopsis}</p></article>
${ownReservation(view)}${adminTools(view)}`;
}
