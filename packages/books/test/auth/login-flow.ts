import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { CookieBrowser, formAction, hiddenInputs } from '../support/cookie-browser.js';
import { signInAtDevProvider, signInThroughService } from '../support/dev-login.js';
import { cookieIn, type LoginEnvironment, startLoginEnvironment } from '../support/login-environment.js';
import type { Driver } from '../support/service.js';

const HTML = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const JSON_ACCEPT = 'application/json';
const IDLE_TIMEOUT_MS = 30 * 60_000;

/** The full login through the development identity provider, over real HTTP, on one driver. */
export function loginFlowSuite(driver: Driver, skip: false | string = false) {
  describe(`login through the development identity provider (${driver})`, { skip }, () => {
    let env: LoginEnvironment;
    before(async () => {
      env = await startLoginEnvironment(driver);
    });
    after(() => env?.close());

    async function me(browser: CookieBrowser) {
      const response = await browser.request(`${env.app}/me`, { headers: { accept: JSON_ACCEPT } });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    }

    async function loggedIn(username: string) {
      const browser = new CookieBrowser();
      const callback = await env.login(browser, username);
      assert.equal(callback.status, 302);
      // Nothing was saved before this login: the web front's home page.
      assert.equal(callback.headers.get('location'), `${env.app}/`);
      return browser;
    }

    async function logout(browser: CookieBrowser, accept = JSON_ACCEPT) {
      const xsrf = await cookieIn(browser, env.app, 'XSRF-TOKEN');
      return browser.request(`${env.app}/logout`, {
        method: 'POST',
        headers: { accept, 'x-xsrf-token': xsrf ?? '' },
      });
    }

    test('GET /login lists the providers', async () => {
      const response = await fetch(`${env.app}/login`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
      assert.match(
        await response.text(),
        /<a class="button" href="\/oauth2\/authorization\/dev">Development sign-in<\/a>/,
      );
    });

    test('redirects, PKCE, cookies: a browser goes from a protected page through the provider and back', async () => {
      const browser = new CookieBrowser();
      const protectedPage = await browser.request(`${env.app}/books?page=0&size=5`, {
        headers: { accept: HTML },
      });
      assert.equal(protectedPage.status, 302);
      assert.equal(protectedPage.headers.get('location'), '/login');

      const start = await browser.request(`${env.app}/oauth2/authorization/dev`, {
        headers: { accept: HTML },
      });
      assert.equal(start.status, 302);
      const authorize = new URL(start.headers.get('location') ?? '');
      assert.equal(authorize.origin, env.idp.issuer);
      assert.equal(authorize.searchParams.get('redirect_uri'), env.callback);
      assert.equal(authorize.searchParams.get('code_challenge_method'), 'S256');
      assert.match(authorize.searchParams.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
      assert.ok(authorize.searchParams.get('state'));
      assert.ok(authorize.searchParams.get('nonce'));
      const preLoginSession = await cookieIn(browser, env.app, 'JSESSIONID');
      assert.ok(preLoginSession, 'the pending login lives in a pre-login session');
      const preLoginXsrf = await cookieIn(browser, env.app, 'XSRF-TOKEN');

      const callback = await signInAtDevProvider(
        browser,
        authorize,
        { username: 'alice', password: 'alice' },
        env.callback,
      );
      assert.equal(callback.searchParams.get('state'), authorize.searchParams.get('state'));
      assert.ok(callback.searchParams.get('code'));
      const landed = await browser.request(callback, { headers: { accept: HTML } });
      assert.equal(landed.status, 302);
      assert.equal(landed.headers.get('location'), `${env.app}/books?page=0&size=5`, 'back to the saved URL');

      const sessionCookie = landed.headers.getSetCookie().find((line) => line.startsWith('JSESSIONID='));
      assert.ok(sessionCookie);
      assert.match(sessionCookie, /HttpOnly/i);
      assert.match(sessionCookie, /SameSite=Lax/i);
      assert.match(sessionCookie, /Path=\//);
      assert.doesNotMatch(sessionCookie, /Secure/i, 'plain http on loopback');
      const session = await cookieIn(browser, env.app, 'JSESSIONID');
      assert.notEqual(session, preLoginSession, 'session fixation: the id changes at login');
      assert.notEqual(
        await cookieIn(browser, env.app, 'XSRF-TOKEN'),
        preLoginXsrf,
        'the CSRF token is rotated',
      );

      const current = await me(browser);
      assert.equal(current.status, 200);
      assert.equal(current.body.email, 'alice@example.com');
      assert.equal(current.body.name, 'Alice Liddell');
      assert.equal(current.body.role, 'ROLE_USER');
      assert.equal(current.body.emailVerified, true);

      const books = await browser.request(`${env.app}/books?page=0&size=5`, {
        headers: { accept: JSON_ACCEPT },
      });
      assert.equal(books.status, 200);

      const fixated = await fetch(`${env.app}/me`, { headers: { cookie: `JSESSIONID=${preLoginSession}` } });
      assert.equal(fixated.status, 401, 'the pre-login session id is worthless after login');
    });

    test('the same person logging in again is the same user', async () => {
      const first = await me(await loggedIn('bob'));
      const second = await me(await loggedIn('bob'));
      assert.equal(first.body.id, second.body.id);
    });

    test('ADMIN_EMAILS grants ROLE_ADMIN at login, only for a verified email', async () => {
      assert.equal((await me(await loggedIn('admin'))).body.role, 'ROLE_ADMIN');
      const mallory = await me(await loggedIn('mallory'));
      assert.equal(mallory.body.emailVerified, false);
      assert.equal(mallory.body.role, 'ROLE_USER');
    });

    test('a state mismatch is 401 and signs nobody in', async () => {
      const browser = new CookieBrowser();
      const callback = await signInThroughService(browser, env.app, 'alice');
      callback.searchParams.set('state', 'forged-state');
      const response = await browser.request(callback, { headers: { accept: JSON_ACCEPT } });
      assert.equal(response.status, 401);
      assert.match(response.headers.get('content-type') ?? '', /application\/problem\+json/);
      assert.equal(((await response.json()) as { code: string }).code, 'OIDC_STATE_MISMATCH');
      assert.equal((await me(browser)).status, 401);
    });

    test('a browser sees the failure on the login page', async () => {
      const browser = new CookieBrowser();
      const callback = await signInThroughService(browser, env.app, 'alice');
      callback.searchParams.set('state', 'forged-state');
      const response = await browser.request(callback, { headers: { accept: HTML } });
      assert.equal(response.status, 401);
      const html = await response.text();
      assert.match(html, /Sign-in failed/);
      assert.match(html, /\/oauth2\/authorization\/dev/);
    });

    test('a callback delivered to another browser (login CSRF) is 401', async () => {
      const victim = new CookieBrowser();
      const attacker = new CookieBrowser();
      const callback = await signInThroughService(attacker, env.app, 'bob');
      const response = await victim.request(callback, { headers: { accept: JSON_ACCEPT } });
      assert.equal(response.status, 401);
      assert.equal((await me(victim)).status, 401);
    });

    test('a replayed callback (the code again) is rejected', async () => {
      const browser = new CookieBrowser();
      const callback = await signInThroughService(browser, env.app, 'alice');
      assert.equal((await browser.request(callback)).status, 302);
      const replay = await browser.request(callback, { headers: { accept: JSON_ACCEPT } });
      assert.equal(replay.status, 401);
      // With a new login in progress, the old code still does not get in: its state is not this login's.
      await browser.follow(`${env.app}/oauth2/authorization/dev`, { stopAt: env.callback });
      const again = await browser.request(callback, { headers: { accept: JSON_ACCEPT } });
      assert.equal(again.status, 401);
    });

    test('logout needs the CSRF token', async () => {
      const browser = await loggedIn('alice');
      const response = await browser.request(`${env.app}/logout`, {
        method: 'POST',
        headers: { accept: JSON_ACCEPT },
      });
      assert.equal(response.status, 403);
      assert.equal((await me(browser)).status, 200, 'still signed in');
    });

    test('logout invalidates the session on the server and logs out at the provider', async () => {
      const browser = await loggedIn('alice');
      const session = await cookieIn(browser, env.app, 'JSESSIONID');
      const response = await logout(browser);
      assert.equal(response.status, 200);
      const { logoutUrl } = (await response.json()) as { logoutUrl: string };
      const endSession = new URL(logoutUrl);
      assert.equal(endSession.origin, env.idp.issuer);
      assert.equal(endSession.searchParams.get('post_logout_redirect_uri'), `${env.app}/login?logout`);
      assert.ok(endSession.searchParams.get('id_token_hint'));
      assert.match(
        response.headers.getSetCookie().find((line) => line.startsWith('JSESSIONID=')) ?? '',
        /Expires=Thu, 01 Jan 1970/,
      );

      // A client that keeps the old cookie gets nowhere: the session row is gone.
      const replayed = await fetch(`${env.app}/me`, { headers: { cookie: `JSESSIONID=${session}` } });
      assert.equal(replayed.status, 401);

      // The browser completes the logout at the provider and lands on the login page.
      const confirm = await browser.follow(endSession);
      const html = await confirm.response.text();
      const done = await browser.submitForm(
        formAction(html, confirm.url),
        { ...hiddenInputs(html), logout: 'yes' },
        env.app,
      );
      assert.equal(done.stoppedAt?.href, `${env.app}/login?logout`);
      const page = await browser.request(done.stoppedAt);
      assert.match(await page.text(), /You have been signed out/);
      // The provider forgot the user too: the next login asks for the password again.
      const next = await browser.follow(`${env.app}/oauth2/authorization/dev`, { stopAt: env.callback });
      assert.equal(next.stoppedAt, undefined);
      assert.match(await next.response.text(), /Development sign-in/);
    });

    test('a browser form logout is redirected (303) to the provider', async () => {
      const browser = await loggedIn('bob');
      const response = await logout(browser, HTML);
      assert.equal(response.status, 303);
      assert.ok(response.headers.get('location')?.startsWith(`${env.idp.issuer}/session/end?`));
      assert.equal((await me(browser)).status, 401);
    });

    test('an expired session is 401 for API calls and a redirect to /login for browsers', async () => {
      const browser = await loggedIn('bob');
      assert.equal((await me(browser)).status, 200);
      env.service.clock.advance(IDLE_TIMEOUT_MS + 1000);
      try {
        const expired = await me(browser);
        assert.equal(expired.status, 401);
        assert.equal(expired.body.code, 'UNAUTHENTICATED');
        const navigation = await browser.request(`${env.app}/me`, { headers: { accept: HTML } });
        assert.equal(navigation.status, 302);
        assert.equal(navigation.headers.get('location'), '/login');
      } finally {
        env.service.clock.advance(-(IDLE_TIMEOUT_MS + 1000));
      }
    });

    test('two admins signed in through the provider edit one book: the second If-Match is 412, then 304 and a retry', async () => {
      const [first, second] = [await loggedIn('admin'), await loggedIn('admin')];
      const call = async (browser: CookieBrowser, path: string, init: RequestInit = {}) => {
        const xsrf = (await cookieIn(browser, env.app, 'XSRF-TOKEN')) ?? '';
        const headers = {
          accept: JSON_ACCEPT,
          'x-xsrf-token': xsrf,
          ...(init.headers as Record<string, string>),
        };
        return browser.request(`${env.app}${path}`, { ...init, headers });
      };
      const json = { 'content-type': 'application/json' };
      const fields = { title: 'Dune', author: 'Frank Herbert', synopsis: 'Spice.' };
      const created = await call(first, '/books', {
        method: 'POST',
        headers: json,
        body: JSON.stringify(fields),
      });
      assert.equal(created.status, 201);
      const path = new URL(created.headers.get('location') ?? '').pathname;
      const tag = (await call(second, path)).headers.get('etag') ?? '';
      assert.equal(tag, created.headers.get('etag'), 'the same user sees the same representation');

      const put = (browser: CookieBrowser, title: string, ifMatch: string) =>
        call(browser, path, {
          method: 'PUT',
          headers: { ...json, 'if-match': ifMatch },
          body: JSON.stringify({ ...fields, title }),
        });
      const won = await put(first, 'First admin', tag);
      assert.equal(won.status, 200);
      const lost = await put(second, 'Second admin', tag);
      assert.equal(lost.status, 412);
      assert.equal(((await lost.json()) as { code: string }).code, 'PRECONDITION_FAILED');

      const unchanged = await call(first, path, {
        headers: { 'if-none-match': won.headers.get('etag') ?? '' },
      });
      assert.equal(unchanged.status, 304);
      const reread = await call(second, path, { headers: { 'if-none-match': tag } });
      assert.equal(reread.status, 200);
      assert.equal(((await reread.json()) as { title: string }).title, 'First admin');
      const retried = await put(second, 'Second admin', reread.headers.get('etag') ?? '');
      assert.equal(retried.status, 200);
    });

    test('an unknown provider is 404 problem details', async () => {
      const response = await fetch(`${env.app}/oauth2/authorization/nope`);
      assert.equal(response.status, 404);
      assert.equal(((await response.json()) as { code: string }).code, 'UNKNOWN_LOGIN_PROVIDER');
    });
  });
}
