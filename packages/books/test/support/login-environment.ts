import { freePort } from '@platform/testkit';
import { type DevAccount, defaultDevAccounts } from '../../dev/accounts.js';
import { type DevIdentityProvider, startDevIdentityProvider } from '../../dev/identity-provider.js';
import { CookieBrowser } from './cookie-browser.js';
import { signInThroughService } from './dev-login.js';
import { type Driver, startTestService, type TestService } from './service.js';
import type { TestSession } from './test-sessions.js';

/** An account whose email is in ADMIN_EMAILS but not verified: it must not become admin. */
export const unverifiedAdminEmail: DevAccount = {
  username: 'mallory',
  password: 'mallory',
  name: 'Mallory',
  email: 'mallory@example.com',
  emailVerified: false,
};

export interface LoginEnvironment {
  service: TestService;
  idp: DevIdentityProvider;
  /** Base URL of the service, e.g. http://127.0.0.1:41234 */
  app: string;
  /** The callback prefix the provider redirects to. */
  callback: string;
  /**
   * Logs in through the real redirects: `/oauth2/authorization/dev`, the provider's form, and the
   * callback (fetched). Returns the callback's response.
   */
  login(browser: CookieBrowser, username: string): Promise<Response>;
  close(): Promise<void>;
}

/** A third ordinary account, for scenarios with three users. */
export const carol: DevAccount = {
  username: 'carol',
  password: 'carol',
  name: 'Carol Reader',
  email: 'carol@example.com',
  emailVerified: true,
};

/** The service (on `driver`) and the development identity provider, wired to each other over loopback. */
export async function startLoginEnvironment(
  driver: Driver,
  env: NodeJS.ProcessEnv = {},
): Promise<LoginEnvironment> {
  // The service needs the issuer and the provider needs the service's redirect URI: reserve the port.
  const idpPort = await freePort();
  const service = await startTestService(driver, {
    env: {
      OIDC_PROVIDERS: 'dev',
      OIDC_DEV_ISSUER: `http://127.0.0.1:${idpPort}`,
      ADMIN_EMAILS: `admin@example.com,${unverifiedAdminEmail.email}`,
      ...env,
    },
  });
  const idp = await startDevIdentityProvider({
    host: '127.0.0.1',
    port: idpPort,
    clientBaseUrls: [service.url],
    accounts: [...defaultDevAccounts, unverifiedAdminEmail, carol],
  }).catch(async (error: unknown) => {
    await service.close();
    throw error;
  });
  const callback = `${service.url}/login/oauth2/code/dev`;
  return {
    service,
    idp,
    app: service.url,
    callback,
    async login(browser, username) {
      return browser.request(await signInThroughService(browser, service.url, username));
    },
    async close() {
      await idp.close();
      await service.close();
    },
  };
}

/** A cookie's value in the browser's jar for `url`. */
export async function cookieIn(
  browser: CookieBrowser,
  url: string,
  name: string,
): Promise<string | undefined> {
  const cookies = await browser.jar.getCookies(url);
  return cookies.find((cookie) => cookie.key === name)?.value;
}

/**
 * Signs `username` in through the development identity provider (the real redirects and the provider's
 * form) and returns the resulting JSESSIONID and XSRF-TOKEN as a session for the API client.
 */
export async function loginSession(environment: LoginEnvironment, username: string): Promise<TestSession> {
  const browser = new CookieBrowser();
  const callback = await environment.login(browser, username);
  await callback.body?.cancel();
  const session = await cookieIn(browser, environment.app, 'JSESSIONID');
  const xsrf = await cookieIn(browser, environment.app, 'XSRF-TOKEN');
  if (session === undefined || xsrf === undefined) throw new Error(`login as ${username} set no session`);
  const cookie = `JSESSIONID=${session}; XSRF-TOKEN=${xsrf}`;
  const me = await fetch(`${environment.app}/me`, { headers: { cookie, accept: 'application/json' } });
  if (me.status !== 200) throw new Error(`GET /me after login as ${username}: ${me.status}`);
  return { user: (await me.json()) as TestSession['user'], cookie, xsrf };
}
