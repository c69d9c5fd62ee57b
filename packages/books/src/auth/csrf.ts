import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { CSRF_COOKIE, CSRF_HEADER, cookieOptions } from './cookies.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const TOKEN_BYTES = 32;
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
/** The form field an HTML form sends the token in (Spring's name). */
export const CSRF_FORM_FIELD = '_csrf';
const FORM_CONTENT_TYPE = 'application/x-www-form-urlencoded';

declare module 'fastify' {
  interface FastifyRequest {
    /** The request's CSRF token (the cookie's, or the one issued with this response). */
    csrfToken: string;
  }
  interface FastifyContextConfig {
    /** The route accepts the token in the `_csrf` field of a form body (checked by checkCsrfFormField). */
    csrfFormField?: boolean;
  }
}

/** Sets a fresh `XSRF-TOKEN` cookie (readable by scripts, as Spring's CookieCsrfTokenRepository does). */
export function issueCsrfToken(
  request: FastifyRequest,
  reply: FastifyReply,
  publicBaseUrl: string | undefined,
): string {
  const token = randomBytes(TOKEN_BYTES).toString('base64url');
  reply.setCookie(CSRF_COOKIE, token, cookieOptions(request, publicBaseUrl, false));
  request.csrfToken = token;
  return token;
}

/**
 * The token as it is written into a response body: random bytes, then the token XOR those bytes
 * (Spring Security 6's XorCsrfTokenRequestAttributeHandler). Each response carries different bytes,
 * so a compression side channel (BREACH) cannot recover the secret across responses.
 */
export function maskCsrfToken(token: string): string {
  const secret = Buffer.from(token, 'base64url');
  const pad = randomBytes(secret.length);
  const masked = Buffer.alloc(secret.length);
  for (let i = 0; i < secret.length; i++) masked[i] = (secret[i] ?? 0) ^ (pad[i] ?? 0);
  return Buffer.concat([pad, masked]).toString('base64url');
}

/** The secret bytes a presented value stands for: the raw cookie value (scripts) or a masked one (forms). */
function unmask(presented: string): Buffer | undefined {
  const bytes = Buffer.from(presented, 'base64url');
  if (bytes.length === TOKEN_BYTES) return bytes;
  if (bytes.length !== 2 * TOKEN_BYTES) return undefined;
  const secret = Buffer.alloc(TOKEN_BYTES);
  for (let i = 0; i < TOKEN_BYTES; i++) secret[i] = (bytes[i] ?? 0) ^ (bytes[TOKEN_BYTES + i] ?? 0);
  return secret;
}

function presentedMatches(cookie: string, presented: string): boolean {
  const expected = Buffer.from(cookie, 'base64url');
  const actual = unmask(presented);
  return actual !== undefined && timingSafeEqual(expected, actual);
}

function verify(request: FastifyRequest, hasCookie: boolean, presented: unknown, where: string): void {
  if (!hasCookie || typeof presented !== 'string' || presented === '') {
    throw new AppError(
      'forbidden',
      'CSRF_TOKEN_MISSING',
      `${request.method} needs the XSRF-TOKEN cookie echoed in ${where}; a token cookie has been set, retry with it.`,
    );
  }
  if (!presentedMatches(request.csrfToken, presented)) {
    throw new AppError(
      'forbidden',
      'CSRF_TOKEN_MISMATCH',
      `The token in ${where} does not match the XSRF-TOKEN cookie; send the current cookie value.`,
    );
  }
}

const isFormPost = (request: FastifyRequest) =>
  (request.headers['content-type'] ?? '').toLowerCase().startsWith(FORM_CONTENT_TYPE);

/**
 * Double-submit CSRF check for every route: an unsafe method must echo the `XSRF-TOKEN` cookie in the
 * `X-XSRF-TOKEN` header (403 otherwise), raw or masked. Clients without a well-formed cookie are given
 * one. A form post to a route that takes the `_csrf` field is checked after its body is parsed.
 */
export function csrfProtection(publicBaseUrl: string | undefined) {
  return function checkCsrf(request: FastifyRequest, reply: FastifyReply): void {
    const cookie = request.cookies[CSRF_COOKIE];
    const hasCookie = cookie !== undefined && TOKEN_PATTERN.test(cookie);
    if (hasCookie) request.csrfToken = cookie;
    else issueCsrfToken(request, reply, publicBaseUrl);
    if (SAFE_METHODS.has(request.method)) return;
    const header = request.headers[CSRF_HEADER];
    if (header === undefined && request.routeOptions.config.csrfFormField && isFormPost(request)) return;
    verify(request, hasCookie, header, 'the X-XSRF-TOKEN header');
  };
}

/** preValidation of a `csrfFormField` route: a form post must carry the token in `_csrf`. */
export async function checkCsrfFormField(request: FastifyRequest): Promise<void> {
  if (request.headers[CSRF_HEADER] !== undefined || !isFormPost(request)) return;
  const cookie = request.cookies[CSRF_COOKIE];
  const hasCookie = cookie !== undefined && TOKEN_PATTERN.test(cookie);
  const field = (request.body as Record<string, unknown> | undefined)?.[CSRF_FORM_FIELD];
  verify(request, hasCookie, field, `the ${CSRF_FORM_FIELD} form field`);
}
