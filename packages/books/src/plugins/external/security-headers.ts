import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import helmet, { type HelmetOptions } from 'helmet';
import { isHttps } from '../../auth/cookies.js';

export interface SecurityHeadersOptions {
  publicBaseUrl: string | undefined;
  /**
   * Origins a form on our pages may end up at: logging out posts to /logout, which redirects to the
   * identity provider's end-session endpoint, and Chrome applies `form-action` to that redirect.
   */
  formActionOrigins: string[];
}

/** Spring Security's cache defaults: nothing the service answers is kept by a browser or proxy cache. */
const NO_STORE = {
  'cache-control': 'no-cache, no-store, max-age=0, must-revalidate',
  pragma: 'no-cache',
  expires: '0',
};

/** Spring Security's HSTS default, sent only over https (a browser ignores it over http anyway). */
const HSTS = 'max-age=31536000; includeSubDomains';

/**
 * The one inline style Swagger UI's bundle (@fastify/swagger-ui 6) applies, allowed by its hash rather
 * than 'unsafe-inline'; test/auth/browser-login.test.ts fails on any CSP violation, so an upgrade that
 * changes it is noticed.
 */
const SWAGGER_UI_INLINE_STYLE = "'sha256-RL3ie0nH+Lzz2YNqQN83mnU0J1ot4QL7b99vMdIX99w='";

function cspDirectives(formActionOrigins: string[]): Record<string, string[]> {
  return {
    'default-src': ["'none'"],
    'script-src': ["'self'"],
    'style-src': ["'self'", SWAGGER_UI_INLINE_STYLE],
    // Swagger UI's icons are data: SVGs in its stylesheet.
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    'connect-src': ["'self'"],
    'form-action': ["'self'", ...formActionOrigins],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
  };
}

/**
 * The policy of the service's own pages (web front, login, logout), stricter than the default one
 * Swagger UI needs: the pages run no script at all and load only this origin's stylesheet, so
 * `script-src 'none'`, no inline style hash and no `connect-src`.
 */
function pageCspDirectives(formActionOrigins: string[]): Record<string, string[]> {
  return {
    'default-src': ["'none'"],
    'script-src': ["'none'"],
    'style-src': ["'self'"],
    'img-src': ["'self'"],
    'form-action': ["'self'", ...formActionOrigins],
    'frame-ancestors': ["'none'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
  };
}

const serialise = (directives: Record<string, string[]>) =>
  Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');

/**
 * The headers helmet sets with `options`, worked out once: helmet's middleware is run against a
 * response that only records them. (@fastify/helmet 13 ran `helmet(options)` afresh on every request,
 * 11-12 % of the service's CPU.) Names are lower-cased, as fastify keeps them.
 */
function helmetHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  const recorder = {
    setHeader(name: string, value: string | number) {
      headers[name.toLowerCase()] = String(value);
    },
    // helmet removes X-Powered-By, which node:http never sets.
    removeHeader() {},
  };
  helmet(options)({} as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error) throw error;
  });
  return headers;
}

export interface SecurityHeaders {
  /**
   * Sets every security and cache header of a response (an onRequest hook of every route, 404s and
   * errors included, and the answers fastify gives before any hook runs, such as a malformed path).
   */
  setOn(request: FastifyRequest, reply: FastifyReply): void;
  /** Replaces the Content-Security-Policy with the pages' stricter one (an onRequest hook of the page routes). */
  usePagePolicy(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * Spring Security's default headers, or stricter, on every response: helmet's set (nosniff,
 * `X-Frame-Options: DENY`, `Referrer-Policy: no-referrer` and a Content-Security-Policy that allows
 * only this origin's scripts and styles (no inline code: our pages and Swagger UI load theirs from
 * files), no framing (`frame-ancestors 'none'`) and no plugins), Spring's no-store cache headers and,
 * over https (PUBLIC_BASE_URL, or X-Forwarded-Proto with TRUST_PROXY), HSTS. All computed once.
 */
export function securityHeaders(options: SecurityHeadersOptions): SecurityHeaders {
  const pageCsp = serialise(pageCspDirectives(options.formActionOrigins));
  const always = {
    ...helmetHeaders({
      contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(options.formActionOrigins) },
      frameguard: { action: 'deny' },
      // Set below, only over https.
      strictTransportSecurity: false,
      referrerPolicy: { policy: 'no-referrer' },
    }),
    ...NO_STORE,
  };
  return {
    setOn(request, reply) {
      reply.headers(always);
      if (isHttps(request, options.publicBaseUrl)) reply.header('strict-transport-security', HSTS);
    },
    async usePagePolicy(_request, reply) {
      reply.header('content-security-policy', pageCsp);
    },
  };
}
