import fastifyHelmet from '@fastify/helmet';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
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

export interface SecurityHeaders {
  /** Registers helmet and the cache/HSTS hook for every route, 404s and errors included. */
  plugin: (app: FastifyInstance) => Promise<void>;
  /** The same headers, for the answers fastify gives before any hook runs (a malformed path). */
  setOn(request: FastifyRequest, reply: FastifyReply): void;
  /** Replaces the Content-Security-Policy with the pages' stricter one (an onRequest hook of the page routes). */
  usePagePolicy(request: FastifyRequest, reply: FastifyReply): Promise<void>;
}

/**
 * Spring Security's default headers, or stricter, on every response: helmet sets nosniff,
 * `X-Frame-Options: DENY` and a Content-Security-Policy that allows only this origin's scripts and
 * styles (no inline code: our pages and Swagger UI load theirs from files), no framing
 * (`frame-ancestors 'none'`) and no plugins. A hook adds Spring's no-store cache headers and, over
 * https (PUBLIC_BASE_URL, or X-Forwarded-Proto with TRUST_PROXY), HSTS.
 */
export function securityHeaders(options: SecurityHeadersOptions): SecurityHeaders {
  const directives = cspDirectives(options.formActionOrigins);
  const csp = serialise(directives);
  const pageCsp = serialise(pageCspDirectives(options.formActionOrigins));
  const cacheAndTransport = (request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(NO_STORE);
    if (isHttps(request, options.publicBaseUrl)) reply.header('strict-transport-security', HSTS);
  };
  return {
    plugin: fp(
      async (app: FastifyInstance) => {
        await app.register(fastifyHelmet, {
          global: true,
          contentSecurityPolicy: { useDefaults: false, directives },
          frameguard: { action: 'deny' },
          // Set by the hook below, only over https.
          strictTransportSecurity: false,
          referrerPolicy: { policy: 'no-referrer' },
        });
        app.addHook('onRequest', async (request, reply) => cacheAndTransport(request, reply));
      },
      { name: 'books-security-headers' },
    ),
    setOn(request, reply) {
      reply.header('x-content-type-options', 'nosniff');
      reply.header('x-frame-options', 'DENY');
      reply.header('content-security-policy', csp);
      cacheAndTransport(request, reply);
    },
    async usePagePolicy(_request, reply) {
      reply.header('content-security-policy', pageCsp);
    },
  };
}
