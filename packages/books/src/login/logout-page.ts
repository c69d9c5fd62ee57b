import { LOGOUT_PATH } from '../auth/guards.js';
import { html } from '../pages/html.js';
import { csrfField, htmlPage, type Viewer } from '../pages/layout.js';

/**
 * `GET /logout`: Spring Security's default logout confirmation, a form that posts to /logout with the
 * CSRF token in `_csrf` (masked for this response, so the page never repeats the same secret bytes).
 */
export function logoutPage(maskedCsrfToken: string, viewer: Viewer | undefined): string {
  return htmlPage({
    title: 'Sign out',
    viewer,
    body: html`<section class="card narrow"><h1>Are you sure you want to sign out?</h1>
<form method="post" action="${LOGOUT_PATH}">${csrfField(maskedCsrfToken)}<button type="submit">Sign out</button></form></section>`,
  });
}
