import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { setFlash } from './flash.js';
import { html } from './html.js';
import type { Flash } from './layout.js';
import { safeReturnTo } from './return-to.js';

/** The form field naming the page a form was on, where the browser goes back to after posting it. */
export const BACK_FIELD = 'back';

/** The largest form: a book's synopsis is up to 5000 characters, percent-encoded up to 9 bytes each. */
const FORM_BODY_LIMIT = 64 * 1024;

export type FormBody = Record<string, string | undefined>;

/** Reads url-encoded form bodies in the pages' scope only; API routes keep refusing them (415). */
export function acceptForms(app: FastifyInstance): void {
  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );
}

export const formOf = (request: FastifyRequest): FormBody =>
  typeof request.body === 'object' && request.body !== null ? (request.body as FormBody) : {};

/** The page the form came from (only a path of this service; the home page otherwise). */
export const backOf = (request: FastifyRequest) => safeReturnTo(formOf(request)[BACK_FIELD]);

export const backField = (path: string) => html`<input type="hidden" name="${BACK_FIELD}" value="${path}">`;

/** Post/redirect/get: the message for the next page, then 303 to it. */
export async function redirectWithFlash(
  request: FastifyRequest,
  reply: FastifyReply,
  flash: Flash,
  to: string = backOf(request),
): Promise<FastifyReply> {
  await setFlash(request, reply, flash);
  return reply.redirect(to, 303);
}
