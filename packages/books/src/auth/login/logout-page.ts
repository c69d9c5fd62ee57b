import { htmlPage, LOGOUT_PATH } from '../../pages/layout.js';
import { CSRF_FORM_FIELD } from '../csrf.js';
import { escapeHtml } from './html.js';

/**
 * `GET /logout`: Spring Security's default logout confirmation, a form that posts to /logout with the
 * CSRF token in `_csrf` (masked for this response, so the page never repeats the same secret bytes).
 */
export function logoutPage(maskedCsrfToken: string, signedInAs: string | undefined): string {
  return htmlPage({
    title: 'Sign out: book collection',
    signedInAs,
    body: `<h1>Are you sure you want to sign out?</h1>
<form method="post" action="${LOGOUT_PATH}"><input type="hidden" name="${CSRF_FORM_FIELD}" value="${escapeHtml(maskedCsrfToken)}">
<button type="submit">Sign out</button></form>`,
  });
}
