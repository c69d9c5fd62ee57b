import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import Provider, { type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import { accountClaims, type DevAccount, defaultDevAccounts } from './accounts.js';
import { createInteractionHandler, isInteractionRequest } from './interactions.js';
import { errorPage, logoutPage, signedOutPage } from './pages.js';

export interface DevIdentityProviderOptions {
  /** Interface to listen on; `localhost` listens on both 127.0.0.1 and ::1. Default `localhost`. */
  host?: string;
  /** Port to listen on; 0 picks a free one. Default 3001. */
  port?: number;
  /** Public issuer URL, when it differs from `http://{host}:{port}` (e.g. behind a proxy). */
  issuer?: string;
  /** Base URLs of the book service; each gets `{base}/login/oauth2/code/dev` as redirect URI. Default `localClientBaseUrls(3000)`. */
  clientBaseUrls?: readonly string[];
  clientId?: string;
  clientSecret?: string;
  accounts?: readonly DevAccount[];
  /** Environment used for the production check. Default `process.env`. */
  env?: NodeJS.ProcessEnv;
}

export interface DevIdentityProvider {
  issuer: string;
  close(): Promise<void>;
}

export class DevIdentityProviderError extends Error {
  constructor(
    readonly code: 'DEV_IDP_REFUSED_IN_PRODUCTION' | 'DEV_IDP_LISTEN_FAILED',
    message: string,
  ) {
    super(message);
  }
}

/** The client id and secret the quickstart's books service uses with this provider (development only). */
export const devClient = { clientId: 'books', clientSecret: 'books-dev-secret' } as const;
export const devProviderId = 'dev';

/** The service on this machine, by either loopback name a browser may use: the redirect URI must match exactly. */
export function localClientBaseUrls(port: number): string[] {
  return [`http://localhost:${port}`, `http://127.0.0.1:${port}`];
}
const scopes = 'openid email profile';

function providerConfiguration(
  options: Required<Omit<DevIdentityProviderOptions, 'issuer' | 'env' | 'host' | 'port'>>,
): Configuration {
  const { accounts, clientBaseUrls } = options;
  return {
    clients: [
      {
        client_id: options.clientId,
        client_secret: options.clientSecret,
        client_name: 'Book collection service',
        redirect_uris: clientBaseUrls.map((base) => `${base}/login/oauth2/code/${devProviderId}`),
        post_logout_redirect_uris: clientBaseUrls.flatMap((base) => [`${base}/`, `${base}/login?logout`]),
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    scopes: ['openid', 'email', 'profile'],
    // Cookie keys only have to survive this process: sign-ins in flight do not outlive a restart.
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    // The books service always sends PKCE; requiring it here proves it does.
    pkce: { required: () => true },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        logoutSource: async (ctx: KoaContextWithOIDC, form: string) => {
          ctx.type = 'html';
          ctx.body = logoutPage(form);
        },
        postLogoutSuccessSource: async (ctx: KoaContextWithOIDC) => {
          ctx.type = 'html';
          ctx.body = signedOutPage();
        },
      },
    },
    renderError: async (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage({ ...out });
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx, id) {
      const account = accounts.find((a) => a.username === id);
      if (!account) return undefined;
      return { accountId: id, claims: async () => accountClaims(account) };
    },
    // The books service is first-party: grant its scopes without a consent page.
    async loadExistingGrant(ctx) {
      const { oidc } = ctx;
      const clientId = oidc.client?.clientId;
      const accountId = oidc.session?.accountId;
      if (!clientId || !accountId) return undefined;
      const grantId = oidc.result?.consent?.grantId ?? oidc.session?.grantIdFor(clientId);
      if (grantId) {
        const existing = await oidc.provider.Grant.find(grantId);
        if (existing) return existing;
      }
      const grant = new oidc.provider.Grant({ clientId, accountId });
      grant.addOIDCScope(scopes);
      await grant.save();
      return grant;
    },
  };
}

function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    server.listen(port, host, () => {
      server.off('error', onError);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    if (!server.listening) return resolve();
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * Starts the development OpenID Connect provider (oidc-provider) with the quickstart's accounts and
 * the books service as its one client. Refuses to start when NODE_ENV=production.
 */
export async function startDevIdentityProvider(
  options: DevIdentityProviderOptions = {},
): Promise<DevIdentityProvider> {
  const env = options.env ?? process.env;
  if (env.NODE_ENV === 'production') {
    throw new DevIdentityProviderError(
      'DEV_IDP_REFUSED_IN_PRODUCTION',
      'the development identity provider does not run with NODE_ENV=production: it accepts the passwords printed on its own login page. Configure a real OpenID Connect provider (OIDC_PROVIDERS) instead.',
    );
  }
  const host = options.host ?? 'localhost';
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  const servers: Server[] = [];
  const serve = (req: IncomingMessage, res: ServerResponse) => handler(req, res);

  const primary = createServer(serve);
  servers.push(primary);
  let port: number;
  try {
    port = await listen(primary, options.port ?? 3001, host === 'localhost' ? '127.0.0.1' : host);
  } catch (error) {
    throw new DevIdentityProviderError(
      'DEV_IDP_LISTEN_FAILED',
      `the development identity provider cannot listen on ${host}:${options.port ?? 3001}: ${(error as Error).message}; set OIDC_DEV_ISSUER to a free port, such as http://localhost:3002`,
    );
  }
  if (host === 'localhost') {
    // Browsers and Node may resolve localhost to ::1 first; answer there too when IPv6 exists.
    const secondary = createServer(serve);
    await listen(secondary, port, '::1').then(
      () => servers.push(secondary),
      () => undefined,
    );
  }

  const issuer = options.issuer ?? `http://${host}:${port}`;
  const provider = new Provider(
    issuer,
    providerConfiguration({
      accounts: options.accounts ?? defaultDevAccounts,
      clientBaseUrls: options.clientBaseUrls ?? localClientBaseUrls(3000),
      clientId: options.clientId ?? devClient.clientId,
      clientSecret: options.clientSecret ?? devClient.clientSecret,
    }),
  );
  const providerCallback = provider.callback();
  const interaction = createInteractionHandler(provider, options.accounts ?? defaultDevAccounts);
  handler = (req, res) => {
    if (isInteractionRequest(req.url)) {
      interaction(req, res).catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/html; charset=utf-8' });
        res.end(errorPage({ error: 'server_error', detail: (error as Error).message }));
      });
      return;
    }
    providerCallback(req, res);
  };

  return {
    issuer,
    close: async () => {
      await Promise.all(servers.map(closeServer));
    },
  };
}
