import { CSRF_FORM_FIELD } from '../auth/csrf.js';
import { LOGOUT_PATH } from '../auth/guards.js';
import { html, type SafeHtml } from './html.js';
import { PATHS } from './paths.js';

export const STYLESHEET_PATH = '/assets/books.css';

/** Who is looking at a page: shown in the header, which then offers signing out. */
export interface Viewer {
  name: string;
  admin: boolean;
  /** The CSRF token masked for this response (maskCsrfToken), for the forms of the page. */
  csrf: string;
}

/** A message carried over a redirect (post/redirect/get): what a form did, or why it could not. */
export interface Flash {
  kind: 'success' | 'error';
  text: string;
}

export interface PageOptions {
  title: string;
  viewer?: Viewer | undefined;
  flash?: Flash | undefined;
  /** The path of the page, so its link in the header is marked as the current one. */
  current?: string;
  body: SafeHtml;
}

/** The hidden CSRF field every form of a page carries (a masked token, different in each response). */
export const csrfField = (maskedToken: string) =>
  html`<input type="hidden" name="${CSRF_FORM_FIELD}" value="${maskedToken}">`;

function navigation(viewer: Viewer | undefined, current: string | undefined): SafeHtml {
  const links: [string, string][] = [];
  if (viewer !== undefined) {
    links.push([PATHS.home, 'Books'], [PATHS.myReservations, 'My reservations'], [PATHS.account, 'Account']);
    if (viewer.admin)
      links.push(
        [PATHS.adminReservations, 'All reservations'],
        [PATHS.overdueLoans, 'Overdue loans'],
        [PATHS.audit, 'Audit log'],
        [PATHS.failedNotices, 'Failed notices'],
        [PATHS.newBook, 'Add a book'],
      );
  }
  links.push([PATHS.apiDocs, 'API docs']);
  const items = links.map(
    ([href, label]) =>
      html`<li><a href="${href}"${href === current ? html` aria-current="page"` : ''}>${label}</a></li>`,
  );
  return html`<nav aria-label="Main"><ul>${items}</ul></nav>`;
}

function account(viewer: Viewer | undefined): SafeHtml | undefined {
  if (viewer === undefined) return undefined;
  return html`<div class="account"><span>Signed in as <strong>${viewer.name}</strong></span>
<form method="post" action="${LOGOUT_PATH}">${csrfField(viewer.csrf)}<button type="submit" class="link">Sign out</button></form></div>`;
}

function flashMessage(flash: Flash | undefined): SafeHtml | undefined {
  if (flash === undefined) return undefined;
  const role = flash.kind === 'error' ? 'alert' : 'status';
  return html`<p class="flash flash-${flash.kind}" role="${role}">${flash.text}</p>`;
}

/**
 * Every HTML page of the service: no script at all and no inline style (the pages' Content-Security-
 * Policy allows neither), one stylesheet from this service, a header with the user's name, a sign-out
 * button and the main links whenever someone is signed in.
 */
export function htmlPage({ title, viewer, flash, current, body }: PageOptions): string {
  return html`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title} · Book collection</title>
<meta name="viewport" content="width=device-width, initial-scale=1"><link rel="stylesheet" href="${STYLESHEET_PATH}"></head>
<body><header class="site"><a class="brand" href="${PATHS.home}">Book collection</a>${navigation(viewer, current)}${account(viewer)}</header>
<main>${flashMessage(flash)}${body}</main></body></html>`.markup;
}
