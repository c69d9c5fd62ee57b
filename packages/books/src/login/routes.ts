import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkCsrfFormField, maskCsrfToken } from '../auth/csrf.js';
import { LOGIN_PATH, LOGOUT_PATH, prefersHtml } from '../auth/guards.js';
import type { OidcClient, PendingAuthorization } from '../auth/oidc/client.js';
import { OidcError } from '../auth/oidc/errors.js';
import { AppError } from '../errors.js';
import { baseUrlOf } from '../http/links.js';
import type { UsersRepository } from '../modules/users/users.repository.js';
import { pageErrorHandler } from '../pages/errors.js';
import { safeReturnTo } from '../pages/return-to.js';
import { viewerOf } from '../pages/viewer.js';
import { sendProblem } from '../plugins/app/problem.js';
import { loginPage } from './login-page.js';
import { logoutPage } from './logout-page.js';

/** Session attribute holding state, nonce and PKCE verifier between the redirect and the callback. */
const PENDING_LOGIN = 'oidcPending';
/** Session attribute holding what RP-initiated logout needs after login. */
const PROVIDER_LOGIN = 'oidcLogin';

interface ProviderLogin {
  providerId: string;
  idToken: string | undefined;
}

export interface LoginRoutesOptions {
  oidc: OidcClient;
  /** Counts each completed attempt (metrics). */
  recordLogin: (outcome: 'success' | 'failure') => void;
  /** Records each login (upsert by issuer and subject). */
  users: UsersRepository;
  publicBaseUrl: string | undefined;
  /** Sets the pages' Content-Security-Policy (the login and logout pages are pages of the service). */
  pagePolicy: (request: FastifyRequest, reply: FastifyReply) => Promise<void>;
}

// Failures of a login attempt: the browser's attempt is void (401), except when the provider itself
// could not be reached (502), which is worth retrying.
const STATUS_BY_OIDC_CODE: Partial<Record<OidcError['code'], number>> = {
  OIDC_UNKNOWN_PROVIDER: 404,
  OIDC_DISCOVERY_FAILED: 502,
  OIDC_USERINFO_FAILED: 502,
};

/** Form bodies are read only here, for the logout form; API routes keep refusing them (415). */
const FORM_BODY_LIMIT = 4096;

function loginFailure(request: FastifyRequest, reply: FastifyReply, error: OidcError, oidc: OidcClient) {
  const status = STATUS_BY_OIDC_CODE[error.code] ?? 401;
  // Not the cause: it can carry the callback's parameters, authorization code included.
  request.log.warn({ code: error.code }, `login failed: ${error.message}`);
  if (prefersHtml(request)) {
    const providers = oidc.providers();
    return reply
      .code(status)
      .type('text/html; charset=utf-8')
      .send(loginPage({ providers, loggedOut: false, error: `Sign-in failed: ${error.message}.` }));
  }
  return sendProblem(request, reply, status, error.code, error.message);
}

/**
 * The Spring Security login paths: `GET /login` (provider list), `GET /oauth2/authorization/{provider}`
 * (redirect to the provider), `GET /login/oauth2/code/{provider}` (callback: user upsert and a new
 * session) and `POST /logout` (session destroyed, then RP-initiated logout when the provider has it).
 * They are not contract operations: they serve browsers, not API clients. Registered encapsulated,
 * so their error handler (login failures as a page or problem details) stays theirs.
 */
export async function loginRoutes(
  app: FastifyInstance,
  { oidc, users, publicBaseUrl, recordLogin, pagePolicy }: LoginRoutesOptions,
) {
  app.addHook('onRequest', pagePolicy);
  // Anything else (an expired sign-out form, 404 of a provider) as the pages show errors to browsers,
  // problem details to everyone else.
  const otherFailure = pageErrorHandler(pagePolicy);
  app.setErrorHandler((error, request, reply) => {
    if (error instanceof OidcError) {
      recordLogin('failure');
      return loginFailure(request, reply, error, oidc);
    }
    return otherFailure(error as FastifyError, request, reply);
  });

  app.get<{ Querystring: Record<string, string | undefined> }>(LOGIN_PATH, async (request, reply) => {
    const page = loginPage({
      providers: oidc.providers(),
      loggedOut: 'logout' in request.query,
      viewer: viewerOf(request),
    });
    return reply.type('text/html; charset=utf-8').send(page);
  });

  app.get(LOGOUT_PATH, async (request, reply) =>
    reply
      .type('text/html; charset=utf-8')
      .send(logoutPage(maskCsrfToken(request.csrfToken), viewerOf(request))),
  );

  app.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
    (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
  );

  app.get<{ Params: { provider: string } }>('/oauth2/authorization/:provider', async (request, reply) => {
    const { provider } = request.params;
    if (!oidc.has(provider)) {
      throw new AppError(
        'not_found',
        'UNKNOWN_LOGIN_PROVIDER',
        `No login provider '${provider}'; GET ${LOGIN_PATH} lists them.`,
      );
    }
    const redirectUri = `${baseUrlOf(request, publicBaseUrl)}/login/oauth2/code/${provider}`;
    const { url, pending } = await oidc.startAuthorization(provider, redirectUri);
    await app.sessions.set(request, reply, PENDING_LOGIN, pending);
    return reply.redirect(url.href, 302);
  });

  app.get<{ Params: { provider: string } }>('/login/oauth2/code/:provider', async (request, reply) => {
    const pending = app.sessions.get<PendingAuthorization | null>(request, PENDING_LOGIN);
    if (pending?.providerId !== request.params.provider) {
      throw new OidcError(
        'OIDC_STATE_MISMATCH',
        'this browser has no login in progress with that provider (expired, already completed, or started elsewhere); start the login again',
      );
    }
    // One attempt per authorization request: whatever happens next, the pending login is spent.
    await app.sessions.set(request, reply, PENDING_LOGIN, null);
    const query = new URLSearchParams(request.url.split('?')[1] ?? '');
    const identity = await oidc.completeAuthorization(pending, query);
    const user = await users.upsertFromLogin({
      issuer: identity.issuer,
      subject: identity.subject,
      email: identity.email ?? null,
      emailVerified: identity.emailVerified,
      name: identity.name,
    });
    const { savedUrl } = await app.sessions.start(request, reply, user.id);
    const login: ProviderLogin = { providerId: identity.providerId, idToken: identity.idToken };
    await app.sessions.set(request, reply, PROVIDER_LOGIN, login);
    request.log.info({ userId: user.id, provider: identity.providerId }, 'login');
    recordLogin('success');
    return reply.redirect(`${baseUrlOf(request, publicBaseUrl)}${safeReturnTo(savedUrl)}`, 302);
  });

  app.post(
    LOGOUT_PATH,
    { config: { csrfFormField: true }, preValidation: checkCsrfFormField },
    async (request, reply) => {
      const login = app.sessions.get<ProviderLogin>(request, PROVIDER_LOGIN);
      await app.sessions.destroy(request, reply);
      const base = baseUrlOf(request, publicBaseUrl);
      const signedOut = `${base}${LOGIN_PATH}?logout`;
      let next = signedOut;
      if (login !== undefined) {
        // The local session is gone whatever the provider says; a provider that cannot be reached
        // only means its own session outlives ours.
        const endSession = await oidc
          .endSessionUrl(login.providerId, { idTokenHint: login.idToken, postLogoutRedirectUri: signedOut })
          .catch((error: unknown) => {
            request.log.warn({ err: error }, 'RP-initiated logout skipped: the provider is unreachable');
            return undefined;
          });
        next = endSession?.href ?? signedOut;
      }
      if (prefersHtml(request)) return reply.redirect(next, 303);
      return reply.code(200).send({ logoutUrl: next });
    },
  );
}
