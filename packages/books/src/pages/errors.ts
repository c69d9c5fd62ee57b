import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { prefersHtml } from '../auth/guards.js';
import { type AjvIssue, describeFailure, type Failure, problemErrorHandler } from '../plugins/app/problem.js';
import { fieldMessages } from './field-messages.js';
import { redirectWithFlash } from './forms.js';
import { html } from './html.js';
import { htmlPage } from './layout.js';
import { PATHS } from './paths.js';
import { viewerOf } from './viewer.js';

const TITLES: Record<number, string> = {
  400: 'That did not work',
  403: 'Not allowed',
  404: 'Not found',
  409: 'That did not work',
  429: 'Too many requests',
};

/** Page wording for the failures people meet; the service's own message otherwise (it says what to do). */
const WORDING: Record<string, string> = {
  RESERVATION_ALREADY_OPEN:
    'You already hold a reservation of this book. Cancel it, or finish it, before reserving it again.',
  CSRF_TOKEN_MISSING: 'The form had expired. Please try again.',
  CSRF_TOKEN_MISMATCH: 'The form had expired. Please try again.',
  BOOK_NOT_FOUND: 'There is no such book; it may have been deleted.',
  PAGE_NOT_FOUND: 'There is no such page. Check the address, or start again from the list of books.',
  RESERVATION_NOT_FOUND: 'There is no such reservation.',
  ROLE_REQUIRED: 'Only an admin may do that.',
  NOT_RESERVATION_OWNER: 'That reservation belongs to someone else.',
  BOOK_HAS_OPEN_RESERVATIONS:
    'This book still has waiting, ready or collected reservations; finish or cancel them before deleting it.',
};

function wording(failure: Failure): string {
  const known = WORDING[failure.code];
  if (known !== undefined) return known;
  if (failure.code.startsWith('ILLEGAL_TRANSITION_')) {
    return `That is no longer possible: the reservation has changed meanwhile (${failure.detail})`;
  }
  if (failure.errors !== undefined && failure.errors.length > 0) {
    return `${failure.detail} ${failure.errors.map((error) => `${error.field} ${error.message}`).join('; ')}.`;
  }
  return failure.detail;
}

/**
 * Errors of the pages as people see them: a refused form post goes back to its page with the reason
 * as a message (post/redirect/get); a page that cannot be shown is an error page with the status.
 * API clients that reach a page path (Accept not preferring HTML) get problem details, never HTML.
 */
export function pageErrorHandler(
  pagePolicy: (request: FastifyRequest, reply: FastifyReply) => Promise<void>,
) {
  return async function renderError(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
    if (!prefersHtml(request)) return problemErrorHandler(error, request, reply);
    await pagePolicy(request, reply);
    const described = describeFailure(error, request);
    const failure = error.validation
      ? { ...described, errors: fieldMessages(error.validationContext, error.validation as AjvIssue[]) }
      : described;
    const text = wording(failure);
    if (request.method === 'POST' && request.user !== null && failure.status < 500) {
      return redirectWithFlash(request, reply, { kind: 'error', text });
    }
    const title =
      TITLES[failure.status] ?? (failure.status >= 500 ? 'Something went wrong' : 'That did not work');
    return reply
      .code(failure.status)
      .type('text/html; charset=utf-8')
      .send(
        htmlPage({
          title,
          viewer: viewerOf(request),
          body: html`<section class="card narrow"><h1>${title}</h1><p role="alert">${text}</p>
<p><a href="${PATHS.home}">Back to the books</a></p></section>`,
        }),
      );
  };
}
