// `npm start`: the service plus, outside production, the development identity provider it logs in
// with, so a fresh checkout has a working login (alice, bob, admin) without any external account.

import { startService } from '../src/app/server.js';
import { exitOnStartupError } from '../src/app/startup-error.js';
import { withLocalEnv } from '../src/auth/oidc/local-env.js';
import type { OidcProviderSettings } from '../src/auth/oidc/settings.js';
import { type Config, loadConfig } from '../src/config.js';

const loopback = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The `dev` provider when it points at this machine: then the quickstart must serve it. */
function localDevProvider(config: Config): OidcProviderSettings | undefined {
  const dev = config.oidcProviders.find((provider) => provider.id === 'dev');
  return dev !== undefined && loopback.has(dev.issuer.hostname) ? dev : undefined;
}

/**
 * oidc-provider warns that Node 20 is not its supported runtime, that its state lives in memory and
 * that it signs with development keys: all known and intended for this development-only provider,
 * and nothing a user of the quickstart can act on, so they are not printed.
 */
async function withoutOidcProviderWarnings<T>(start: () => Promise<T>): Promise<T> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    if (!String(args[0]).includes('oidc-provider WARNING')) warn(...args);
  };
  try {
    return await start();
  } finally {
    console.warn = warn;
  }
}

async function startLocalIdentityProvider(config: Config, dev: OidcProviderSettings) {
  // Imported only here: production never loads oidc-provider.
  const { localClientBaseUrls, startDevIdentityProvider } = await withoutOidcProviderWarnings(
    () => import('./identity-provider.js'),
  );
  const clientBaseUrls =
    config.publicBaseUrl !== undefined ? [config.publicBaseUrl] : localClientBaseUrls(config.port);
  return withoutOidcProviderWarnings(() =>
    startDevIdentityProvider({
      host: dev.issuer.hostname.replace(/^\[|\]$/g, ''),
      port: Number(dev.issuer.port || 80),
      issuer: dev.issuer.origin,
      clientBaseUrls,
      clientId: dev.clientId,
      clientSecret: dev.clientSecret,
    }),
  );
}

/** Where the service was asked to listen, once the configuration has been read. */
let listening: Pick<Config, 'host' | 'port'> | undefined;

async function main(): Promise<void> {
  const env = withLocalEnv();
  // The quickstart's admin account is admin@example.com (dev/accounts.ts).
  const config = loadConfig({
    ADMIN_EMAILS: env.NODE_ENV === 'production' ? '' : 'admin@example.com',
    ...env,
  });
  listening = config;
  const dev = localDevProvider(config);
  let idp: { issuer: string; close(): Promise<void> } | undefined;
  if (config.production) {
    console.log('books: NODE_ENV=production, so the development identity provider is not started');
  } else if (dev !== undefined) {
    idp = await startLocalIdentityProvider(config, dev);
    console.log(
      `books: development identity provider at ${idp.issuer} (users alice, bob, admin; password = username)`,
    );
  }
  const service = await startService(config).catch(async (error: unknown) => {
    await idp?.close();
    throw error;
  });
  console.log(`books: sign in at ${config.publicBaseUrl ?? service.url}/login`);
  if (config.notices.smtpUrl === undefined && !config.production) {
    console.log(
      `books: no SMTP_URL, so notices go to the development mailbox at ${config.publicBaseUrl ?? service.url}/web/dev/mailbox`,
    );
  }
  const stop = async () => {
    await service.close();
    await idp?.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((error: unknown) => exitOnStartupError(error, listening));
