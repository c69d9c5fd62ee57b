import type { PageMetadata } from '../../http/pagination.js';
import type { Reservation, Transition } from '../../modules/reservations/reservation.js';
import { backField } from '../../pages/forms.js';
import { html, type SafeHtml } from '../../pages/html.js';
import { csrfField, type Viewer } from '../../pages/layout.js';
import { PATHS } from '../../pages/paths.js';
import { reservationDetail, statusWords } from '../text.js';

const TRANSITION_LABELS: Record<Transition, string> = {
  cancel: 'Cancel reservation',
  collect: 'Mark collected',
  return: 'Mark returned',
  renew: 'Renew',
};

/** The reservation's state in words, with an Overdue mark on a loan past its due date. */
export function reservationStatus(reservation: Reservation): SafeHtml {
  const detail = reservationDetail(reservation);
  const mark = reservation.overdue ? html` <strong class="overdue">Overdue</strong>` : '';
  return html`<p class="status status-${reservation.status.toLowerCase()}"><strong>${statusWords(reservation.status)}</strong>${mark}${
    detail === undefined ? '' : `: ${detail}`
  }</p>`;
}

/** A button that posts a form (with the CSRF token and the page to come back to). */
export function postButton(
  viewer: Viewer,
  action: string,
  label: string,
  back: string,
  style: 'primary' | 'secondary' | 'danger' = 'primary',
): SafeHtml {
  return html`<form method="post" action="${action}" class="inline">${csrfField(viewer.csrf)}${backField(back)}<button type="submit" class="${style}">${label}</button></form>`;
}

/** One button per transition the viewer may take now (the service's own transitionsFor decides which). */
export function transitionButtons(
  viewer: Viewer,
  reservation: Reservation,
  transitions: readonly Transition[],
  back: string,
): SafeHtml {
  return html`${transitions.map((transition) =>
    postButton(
      viewer,
      PATHS.transition(reservation.bookId, reservation.id, transition),
      TRANSITION_LABELS[transition],
      back,
      transition === 'cancel' ? 'secondary' : 'primary',
    ),
  )}`;
}

/** Previous / page n of m / next, as links that keep the rest of the query. */
export function pager(path: string, query: URLSearchParams, metadata: PageMetadata): SafeHtml | undefined {
  if (metadata.totalPages <= 1 && metadata.number === 0) return undefined;
  const href = (page: number) => {
    const next = new URLSearchParams(query);
    next.set('page', String(page));
    return `${path}?${next.toString()}`;
  };
  const last = Math.max(metadata.totalPages - 1, 0);
  const previous = metadata.number > 0 ? Math.min(metadata.number - 1, last) : undefined;
  const following = metadata.number < last ? metadata.number + 1 : undefined;
  return html`<nav class="pager" aria-label="Pages">${
    previous === undefined ? '' : html`<a href="${href(previous)}" rel="prev">Previous</a>`
  }<span>Page ${metadata.number + 1} of ${Math.max(metadata.totalPages, 1)}</span>${
    following === undefined ? '' : html`<a href="${href(following)}" rel="next">Next</a>`
  }</nav>`;
}
