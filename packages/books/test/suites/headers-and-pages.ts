import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const SPRING_CACHE_CONTROL = 'no-cache, no-store, max-age=0, must-revalidate';
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Spring Security's default headers (or stricter) that every response must carry. */
function assertSecurityHeaders(headers: Headers, what: string) {
  assert.equal(headers.get('x-content-type-options'), 'nosniff', what);
  assert.equal(headers.get('x-frame-options'), 'DENY', what);
  assert.equal(headers.get('cache-control'), SPRING_CACHE_CONTROL, what);
}

function assertStrictCsp(headers: Headers, what: string) {
  const csp = headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/, what);
  // Swagger UI runs its own scripts; the service's pages run none.
  assert.match(csp, /script-src '(self|none)'(;|$)/, what);
  assert.match(csp, /style-src 'self'( 'sha256-[A-Za-z0-9+/=]+')?(;|$)/, what);
  assert.match(csp, /frame-ancestors 'none'/, what);
  assert.match(csp, /object-src 'none'/, what);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/, what);
}

/** A page the CSP above can render: no inline script, no inline style. */
function assertNoInlineCode(html: string, what: string) {
  assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/i, `${what}: inline script`);
  assert.doesNotMatch(html, /<style|\sstyle=/i, `${what}: inline style`);
}

const cookieOf = (response: Response, name: string) =>
  response.headers
    .getSetCookie()
    .find((line) => line.startsWith(`${name}=`))
    ?.split(';')[0]
    ?.slice(name.length + 1);

const sessionRows = async (service: TestService) =>
  Number((await service.db.query<{ n: string }>('select count(*) as n from sessions'))[0]?.n);

export function headersAndPagesSuite(driver: Driver, skip: false | string = false) {
  describe(`security headers, CSRF at logout, sessions and pages (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let user: TestSession;

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      user = await createTestSession(service, { name: 'Alice Reader' });
    });
    after(() => service?.close());

    test('every kind of response carries nosniff, DENY framing and no-store caching', async () => {
      const book = await createBook(api, admin);
      const cases: [string, string, RequestInit][] = [
        ['API 200', `/books/${book.id}`, { headers: { cookie: user.cookie } }],
        ['API 401', '/books', {}],
        ['API 403', '/books', { method: 'POST', headers: { cookie: user.cookie } }],
        ['unknown route 404', '/nope', {}],
        ['405', '/books', { method: 'PATCH', headers: { cookie: user.cookie, 'x-xsrf-token': user.xsrf } }],
        ['malformed path 400', '/books/%E0%A4%A', {}],
        ['browser redirect 302', '/books', { headers: { accept: BROWSER_ACCEPT }, redirect: 'manual' }],
        ['login page', '/login', {}],
        ['logout page', '/logout', { headers: { cookie: user.cookie } }],
        ['Swagger UI', '/swagger-ui/', {}],
        ['contract', '/v3/api-docs', {}],
        ['431', '/books', { headers: { 'x-padding': 'p'.repeat(20_000) } }],
      ];
      for (const [what, path, init] of cases) {
        const response = await fetch(`${service.url}${path}`, init);
        await response.arrayBuffer();
        assertSecurityHeaders(response.headers, what);
        if (what !== '431') assertStrictCsp(response.headers, what);
        assert.equal(response.headers.get('strict-transport-security'), null, `${what}: no HSTS over http`);
      }
    });

    test('every HTML page has a strict CSP, no inline code, and a sign-out control when signed in', async () => {
      const book = await createBook(api, admin);
      const pages = ['/login', '/logout', '/swagger-ui/', '/', `/web/books/${book.id}`, '/web/reservations'];
      for (const path of pages) {
        const response = await fetch(`${service.url}${path}`, {
          headers: { cookie: user.cookie, accept: BROWSER_ACCEPT },
        });
        assert.equal(response.status, 200, path);
        assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
        assertStrictCsp(response.headers, path);
        const html = await response.text();
        assertNoInlineCode(html, path);
        const stylesheet = /<link rel="stylesheet"[^>]*href="([^"]+)"/.exec(html)?.[1];
        assert.ok(stylesheet, path);
      }
      const login = await (await fetch(`${service.url}/login`, { headers: { cookie: user.cookie } })).text();
      assert.match(login, /Signed in as <strong>Alice Reader<\/strong>/);
      assert.match(
        login,
        /<form method="post" action="\/logout"><input type="hidden" name="_csrf" value="[^"]+"><button[^>]*>Sign out<\/button>/,
      );
      const anonymous = await (await fetch(`${service.url}/login`)).text();
      assert.doesNotMatch(anonymous, /Sign out/);
      // Swagger UI's sign-out control is put in place by the theme script it loads.
      const themeJs = await (await fetch(`${service.url}/swagger-ui/static/theme/books.js`)).text();
      assert.match(themeJs, /"\/logout"/);
      assert.match(themeJs, /Sign out/);
    });

    test('GET /logout is a confirmation form with a masked CSRF token, different in every response', async () => {
      const token = user.xsrf;
      const fields = new Set<string>();
      for (let i = 0; i < 3; i++) {
        const html = await (
          await fetch(`${service.url}/logout`, { headers: { cookie: user.cookie } })
        ).text();
        assert.match(html, /<form method="post" action="\/logout">/);
        const field = /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
        assert.notEqual(field, '');
        assert.ok(!html.includes(token), 'the raw token never appears in a page');
        fields.add(field);
      }
      assert.equal(fields.size, 3, 'each response masks the token with fresh bytes');
    });

    test('the logout form signs out, rotates the CSRF token, and refuses a missing or forged _csrf', async () => {
      const alice = await createTestSession(service);
      const page = await (await fetch(`${service.url}/logout`, { headers: { cookie: alice.cookie } })).text();
      const masked = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const post = (body: string, accept = BROWSER_ACCEPT) =>
        fetch(`${service.url}/logout`, {
          method: 'POST',
          redirect: 'manual',
          headers: {
            cookie: alice.cookie,
            accept,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body,
        });
      // A browser gets its page back with the reason; a script gets problem details.
      const expired = await post('');
      assert.equal(expired.status, 303);
      assert.equal(expired.headers.get('location'), '/');
      const missing = await post('', 'application/json');
      assert.equal(missing.status, 403);
      assert.equal(((await missing.json()) as { code: string }).code, 'CSRF_TOKEN_MISSING');
      const forged = await post(`_csrf=${'A'.repeat(86)}`, 'application/json');
      assert.equal(forged.status, 403);
      assert.equal(((await forged.json()) as { code: string }).code, 'CSRF_TOKEN_MISMATCH');
      assert.equal((await api.get('/me', { session: alice })).status, 200, 'still signed in');

      const signedOut = await post(`_csrf=${encodeURIComponent(masked)}`);
      assert.equal(signedOut.status, 303);
      assert.equal(signedOut.headers.get('location'), `${service.url}/login?logout`);
      const rotated = cookieOf(signedOut, 'XSRF-TOKEN');
      assert.ok(rotated !== undefined && rotated !== alice.xsrf, 'a new XSRF-TOKEN is issued at logout');
      assert.equal((await api.get('/me', { session: alice })).status, 401);
    });

    test('a masked token is accepted in X-XSRF-TOKEN too; API operations keep refusing form bodies', async () => {
      const page = await (await fetch(`${service.url}/logout`, { headers: { cookie: admin.cookie } })).text();
      const masked = /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';
      const created = await api.post('/books', {
        session: admin,
        body: { title: 'Masked', author: 'A', synopsis: 'S' },
        headers: { 'x-xsrf-token': masked },
      });
      assert.equal(created.status, 201);
      const form = await api.post('/books', {
        session: admin,
        rawBody: 'title=Dune&author=F&synopsis=S',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
      assert.equal(form.status, 415);
    });

    test('anonymous requests, browser navigations included, create no session rows', async () => {
      const before = await sessionRows(service);
      for (let i = 0; i < 40; i++) {
        const navigation = await fetch(`${service.url}/books?page=${i}`, {
          headers: { accept: BROWSER_ACCEPT },
          redirect: 'manual',
        });
        assert.equal(navigation.status, 302);
        assert.ok(cookieOf(navigation, 'REDIRECT_URI'), 'the URL to return to is kept in a cookie');
        assert.equal(cookieOf(navigation, 'JSESSIONID'), undefined);
        const apiCall = await fetch(`${service.url}/reservations`);
        assert.equal(apiCall.status, 401);
        await fetch(`${service.url}/login`);
      }
      assert.equal(await sessionRows(service), before);
    });

    test('springdoc paths work, and Swagger UI is branded as this service and explores /v3/api-docs', async () => {
      const index = await fetch(`${service.url}/swagger-ui/index.html`, { redirect: 'manual' });
      assert.equal(index.status, 302);
      assert.equal(index.headers.get('location'), '/swagger-ui/');
      const config = (await (await fetch(`${service.url}/v3/api-docs/swagger-config`)).json()) as {
        url: string;
        configUrl: string;
      };
      assert.equal(config.url, '/v3/api-docs');
      assert.equal(config.configUrl, '/v3/api-docs/swagger-config');
      const html = await (await fetch(`${service.url}/swagger-ui/`)).text();
      assert.match(html, /<title>Book collection service: API<\/title>/);
      assert.doesNotMatch(html, /favicon-32x32\.png/, "fastify's favicon is replaced");
      const initializer = await (
        await fetch(`${service.url}/swagger-ui/static/swagger-initializer.js`)
      ).text();
      assert.match(initializer, /data:image\/svg\+xml;base64,/, 'our logo replaces the fastify one');
      const themeJs = await (await fetch(`${service.url}/swagger-ui/static/theme/books.js`)).text();
      assert.match(themeJs, /url: "\/v3\/api-docs"/);
    });
  });

  describe(`HSTS behind an https proxy (${driver})`, { skip }, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(driver, { env: { TRUST_PROXY: 'true' } });
    });
    after(() => service?.close());

    test('Strict-Transport-Security is sent only when the proxy says the request came over https', async () => {
      const https = await fetch(`${service.url}/login`, { headers: { 'x-forwarded-proto': 'https' } });
      assert.equal(https.headers.get('strict-transport-security'), 'max-age=31536000; includeSubDomains');
      assert.match(https.headers.getSetCookie().join('\n'), /XSRF-TOKEN=[^;]+;.*Secure/);
      const plain = await fetch(`${service.url}/login`);
      assert.equal(plain.headers.get('strict-transport-security'), null);
    });
  });

  describe(`scheduled purge of expired sessions (${driver})`, { skip }, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(driver, { env: { SESSION_PURGE_INTERVAL: '1s' } });
    });
    after(() => service?.close());

    test('sessions past their idle timeout are deleted without any login happening', async () => {
      await createTestSession(service);
      await createTestSession(service);
      assert.equal(await sessionRows(service), 2);
      service.clock.advance(31 * 60_000);
      const deadline = Date.now() + 20_000;
      while ((await sessionRows(service)) > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      assert.equal(await sessionRows(service), 0);
    });
  });
}
