import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { CSRF_COOKIE, CSRF_HEADER, cookieOptions } from './cookies.js';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'TRACE']);
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** Sets a fresh `XSRF-TOKEN` cookie (readable by scripts, as Spring's CookieCsrfTokenRepository does). */
export function issueCsrfToken(
  request: FastifyRequest,
  reply: FastifyReply,
  publicBaseUrl: string | undefined,
): string {
  const token = randomBytes(32).toString('base64url');
  reply.setCookie(CSRF_COOKIE, token, cookieOptions(request, publicBaseUrl, false));
  return token;
}

function sameToken(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Double-submit CSRF check for every route: an unsafe method must echo the `XSRF-TOKEN` cookie in the
 * `X-XSRF-TOKEN` header (403 otherwise). Clients without a well-formed cookie are given one.
 */
export function csrfProtection(publicBaseUrl: string | undefined) {
  return async function checkCsrf(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const cookie = request.cookies[CSRF_COOKIE];
    const hasCookie = cookie !== undefined && TOKEN_PATTERN.test(cookie);
    if (!hasCookie) issueCsrfToken(request, reply, publicBaseUrl);
    if (SAFE_METHODS.has(request.method)) return;
    const header = request.headers[CSRF_HEADER];
    if (!hasCookie || typeof header !== 'string' || header === '') {
      throw new AppError(
        'forbidden',
        'CSRF_TOKEN_MISSING',
        `${request.method} needs the XSRF-TOKEN cookie echoed in the X-XSRF-TOKEN header; a token cookie has been set, retry with it.`,
      );
    }
    if (!sameToken(cookie, header)) {
      throw new AppError(
        'forbidden',
        'CSRF_TOKEN_MISMATCH',
        'The X-XSRF-TOKEN header does not match the XSRF-TOKEN cookie; send the current cookie value.',
      );
    }
  };
}
