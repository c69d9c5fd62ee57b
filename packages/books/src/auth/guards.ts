import type { FastifyReply, FastifyRequest, onRequestAsyncHookHandler } from 'fastify';
import type { SecurityRequirement } from '../contract/document.js';
import { AppError } from '../errors.js';
import { hasRole, ROLES, type Role } from '../modules/users/user.js';

export const SESSION_SCHEME = 'sessionCookie';
export const LOGIN_PATH = '/login';
export const LOGOUT_PATH = '/logout';

/**
 * True for a browser navigation: `Accept` ranks text/html above JSON (`*` wildcards count for JSON,
 * so curl and fetch defaults are API callers), and the request is not an XMLHttpRequest.
 */
export function prefersHtml(request: FastifyRequest): boolean {
  if (request.headers['x-requested-with'] === 'XMLHttpRequest') return false;
  let html = 0;
  let json = 0;
  for (const range of (request.headers.accept ?? '').split(',')) {
    const [type = '', ...params] = range.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam === undefined ? 1 : Number(qParam.slice(2)) || 0;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (
      type === 'application/json' ||
      type.endsWith('+json') ||
      type === '*/*' ||
      type === 'application/*'
    ) {
      json = Math.max(json, q);
    }
  }
  return html > 0 && html > json;
}

function requiredRoles(requirement: SecurityRequirement): Role[] {
  const scopes = requirement[SESSION_SCHEME] ?? [];
  for (const scope of scopes) {
    if (!ROLES.includes(scope as Role)) throw new Error(`contract names unknown role '${scope}'`);
  }
  return scopes as Role[];
}

/**
 * The onRequest guard for an operation, built from its contract security requirements: none for a
 * public operation; otherwise a session is needed (401, or 302 to /login for browsers) and, when the
 * requirement lists roles, one of them (403). Ownership is checked later, by the services.
 */
export function guardFor(
  requirements: SecurityRequirement[],
  /** Where the browser returns after signing in; a form post returns to the page that showed the form. */
  savedUrl: (request: FastifyRequest) => string = (request) => request.url,
): onRequestAsyncHookHandler | undefined {
  const sessionRequirements = requirements.filter((requirement) => SESSION_SCHEME in requirement);
  if (sessionRequirements.length === 0) return undefined;
  const roleAlternatives = sessionRequirements.map(requiredRoles);
  return async function requireSession(request: FastifyRequest, reply: FastifyReply) {
    const user = request.user;
    if (user === null) {
      if (prefersHtml(request)) {
        await request.server.sessions.saveUrl(request, reply, savedUrl(request));
        return reply.redirect(LOGIN_PATH, 302);
      }
      throw new AppError(
        'unauthenticated',
        'UNAUTHENTICATED',
        `Sign in first (GET ${LOGIN_PATH}); the request carried no valid session cookie.`,
      );
    }
    const allowed = roleAlternatives.some((roles) => roles.every((role) => hasRole(user, role)));
    if (!allowed) {
      const needed = [...new Set(roleAlternatives.flat())].join(' or ');
      throw new AppError(
        'forbidden',
        'ROLE_REQUIRED',
        `This operation needs ${needed}; you have ${user.role}.`,
      );
    }
  };
}
