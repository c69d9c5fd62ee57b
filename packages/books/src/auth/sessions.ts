import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import type { User } from '../modules/users/user.js';
import { cookieOptions, SESSION_COOKIE } from './cookies.js';
import { issueCsrfToken } from './csrf.js';
import type { Session, SessionStore } from './session-store.js';

/**
 * The seam the login routes use (see README "Authentication"). Every method takes the current
 * request so it can see the session the request arrived with, and the reply to set cookies.
 */
export interface SessionManager {
  /**
   * Signs `userId` in under a NEW session id (fixation safe): the pre-login session is deleted, a new
   * `JSESSIONID` and a new `XSRF-TOKEN` are set. Returns the URL saved before login, if any, to redirect to.
   */
  start(
    request: FastifyRequest,
    reply: FastifyReply,
    userId: string,
  ): Promise<{ savedUrl: string | undefined }>;
  /** Deletes the session on the server and expires the cookie. Safe without a session. */
  destroy(request: FastifyRequest, reply: FastifyReply): Promise<void>;
  /** Reads an attribute of the request's session (for example the OIDC state during login). */
  get<T>(request: FastifyRequest, name: string): T | undefined;
  /** Stores an attribute, creating a pre-login session when the request has none. */
  set(request: FastifyRequest, reply: FastifyReply, name: string, value: unknown): Promise<void>;
  /** Remembers where to go after login in a cookie, not the session (called when a browser is sent to /login). */
  saveUrl(request: FastifyRequest, reply: FastifyReply, url: string): Promise<void>;
  /** The store itself, for tools that create sessions outside a request (tests, benchmarks). */
  readonly store: SessionStore;
}

declare module 'fastify' {
  interface FastifyRequest {
    /** The live session the request carried, or null. */
    session: Session | null;
    /** The signed-in user, or null. */
    user: User | null;
  }
  interface FastifyInstance {
    sessions: SessionManager;
  }
}

export interface SessionPluginOptions {
  store: SessionStore;
  publicBaseUrl: string | undefined;
  /** How often sessions past their idle timeout are deleted (also at every login). */
  purgeIntervalMs: number;
}

/**
 * Where to return after login, kept in a cookie as Spring's CookieRequestCache does, so an anonymous
 * browser navigation creates no session row. Its value passes through safeReturnTo when used, so a
 * forged cookie can only point at a path of this service.
 */
const SAVED_URL_COOKIE = 'REDIRECT_URI';
const SAVED_URL_MAX_AGE_S = 600;

async function sessionPlugin(
  app: FastifyInstance,
  { store, publicBaseUrl, purgeIntervalMs }: SessionPluginOptions,
) {
  const setSessionCookie = (request: FastifyRequest, reply: FastifyReply, id: string) =>
    reply.setCookie(SESSION_COOKIE, id, cookieOptions(request, publicBaseUrl, true));

  const ensureSession = async (request: FastifyRequest, reply: FastifyReply): Promise<Session> => {
    if (request.session !== null) return request.session;
    const id = await store.create(null);
    const session = await store.find(id);
    if (session === undefined) throw new Error('a session created just now was not found');
    setSessionCookie(request, reply, id);
    request.session = session;
    return session;
  };

  const manager: SessionManager = {
    store,
    async start(request, reply, userId) {
      const savedCookie = request.cookies[SAVED_URL_COOKIE];
      const savedUrl =
        savedCookie === undefined ? undefined : Buffer.from(savedCookie, 'base64url').toString('utf8');
      if (savedCookie !== undefined) {
        reply.clearCookie(SAVED_URL_COOKIE, cookieOptions(request, publicBaseUrl, true));
      }
      if (request.session !== null) await store.delete(request.session.idHash);
      // Logins are rare next to requests: a cheap moment to drop sessions that have timed out.
      await store.deleteExpired();
      const id = await store.create(userId);
      setSessionCookie(request, reply, id);
      issueCsrfToken(request, reply, publicBaseUrl);
      request.session = (await store.find(id)) ?? null;
      request.user = request.session?.user ?? null;
      return { savedUrl };
    },
    async destroy(request, reply) {
      if (request.session !== null) await store.delete(request.session.idHash);
      request.session = null;
      request.user = null;
      reply.clearCookie(SESSION_COOKIE, cookieOptions(request, publicBaseUrl, true));
      // A new token for whoever uses this browser next, as Spring's CsrfLogoutHandler arranges.
      issueCsrfToken(request, reply, publicBaseUrl);
    },
    get<T>(request: FastifyRequest, name: string) {
      return request.session?.data[name] as T | undefined;
    },
    async set(request, reply, name, value) {
      const session = await ensureSession(request, reply);
      session.data = { ...session.data, [name]: value };
      await store.saveData(session);
    },
    async saveUrl(request, reply, url) {
      reply.setCookie(SAVED_URL_COOKIE, Buffer.from(url).toString('base64url'), {
        ...cookieOptions(request, publicBaseUrl, true),
        maxAge: SAVED_URL_MAX_AGE_S,
      });
    },
  };

  app.decorate('sessions', manager);
  const purge = setInterval(() => {
    store.deleteExpired().then(
      (count) => {
        if (count > 0) app.log.info({ count }, 'expired sessions purged');
      },
      (error: unknown) =>
        app.log.warn({ err: error }, 'expired sessions could not be purged; retrying later'),
    );
  }, purgeIntervalMs);
  purge.unref();
  app.addHook('onClose', async () => clearInterval(purge));
  app.decorateRequest('session', null);
  app.decorateRequest('user', null);
  const attach = (request: FastifyRequest, session: Session) => {
    request.session = session;
    request.user = session.user ?? null;
  };
  const lookUp = async (request: FastifyRequest, id: string) => {
    const session = await store.find(id);
    if (session === undefined) return;
    await store.touch(session);
    attach(request, session);
  };
  // Synchronous while the session is in memory and its idle slide writes nothing (most requests).
  app.addHook('onRequest', (request, _reply, done) => {
    const id = request.cookies[SESSION_COOKIE];
    if (id === undefined || id === '') return done();
    const cached = store.peek(id);
    if (cached !== undefined && !store.touchDue(cached)) {
      attach(request, cached);
      return done();
    }
    lookUp(request, id).then(() => done(), done);
  });
}

/** Loads the JSESSIONID session (and its user) for every request and decorates `app.sessions`. */
export const sessions = fp(sessionPlugin, { name: 'books-sessions', dependencies: ['@fastify/cookie'] });
