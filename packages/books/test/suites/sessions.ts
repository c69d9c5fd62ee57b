import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient, type ApiResponse } from '../support/client.js';
import { SAMPLE_BOOK } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function cookieValue(response: ApiResponse, name: string): string | undefined {
  return response.cookies
    .get(name)
    ?.split(';')[0]
    ?.slice(name.length + 1);
}

/** Sessions, the login seam and CSRF, over real HTTP. The seam is driven by two test routes. */
export function sessionsAndCsrfSuite(driver: Driver, skip: false | string = false) {
  describe(`sessions and CSRF (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;

    before(async () => {
      service = await startTestService(driver, {
        beforeListen(app) {
          // What books-auth's login callback and logout do, reduced to the seam calls.
          app.post<{ Body: { userId: string } }>('/seam/login', async (request, reply) =>
            app.sessions.start(request, reply, request.body.userId),
          );
          app.post('/seam/logout', async (request, reply) => {
            await app.sessions.destroy(request, reply);
            return { ok: true };
          });
          app.post<{ Body: { state: string } }>('/seam/attribute', async (request, reply) => {
            await app.sessions.set(request, reply, 'oidcState', request.body.state);
            return { ok: true };
          });
          app.get('/seam/attribute', async (request) => ({
            state: app.sessions.get(request, 'oidcState') ?? null,
          }));
        },
      });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
    });
    after(() => service?.close());

    test('CSRF: a token cookie is issued to scripts, unsafe methods need it echoed in the header', async () => {
      const first = await api.get('/books', {
        session: { ...admin, cookie: admin.cookie.split(';')[0] ?? '' },
      });
      const issued = first.cookies.get('XSRF-TOKEN');
      assert.ok(issued, 'XSRF-TOKEN is set when missing');
      assert.doesNotMatch(issued, /HttpOnly/i);
      assert.match(issued, /SameSite=Lax/);
      assert.match(issued, /Path=\//);

      const noHeader = await api.post('/books', { session: admin, body: SAMPLE_BOOK, withoutXsrf: true });
      assert.equal(noHeader.status, 403);
      assert.equal(noHeader.body.code, 'CSRF_TOKEN_MISSING');

      const wrong = await api.post('/books', {
        session: admin,
        body: SAMPLE_BOOK,
        withoutXsrf: true,
        headers: { 'x-xsrf-token': 'B'.repeat(43) },
      });
      assert.equal(wrong.status, 403);
      assert.equal(wrong.body.code, 'CSRF_TOKEN_MISMATCH');

      const sessionOnly = admin.cookie.split(';')[0] ?? '';
      const noCookie = await api.post('/books', {
        session: { ...admin, cookie: sessionOnly },
        body: SAMPLE_BOOK,
      });
      assert.equal(noCookie.status, 403);
      assert.ok(noCookie.cookies.get('XSRF-TOKEN'), 'the 403 hands out a token to retry with');

      const ok = await api.post('/books', { session: admin, body: SAMPLE_BOOK });
      assert.equal(ok.status, 201);
    });

    test('CSRF is checked before authentication, as in Spring Security', async () => {
      const response = await api.post('/books', { body: SAMPLE_BOOK });
      assert.equal(response.status, 403);
      assert.equal(response.body.code, 'CSRF_TOKEN_MISSING');
    });

    test('login seam: a browser is sent to /login, then signed in under a NEW id and sent back', async () => {
      const navigation = await api.get('/reservations?page=0', { headers: { accept: BROWSER_ACCEPT } });
      assert.equal(navigation.status, 302);
      const savedUrl = cookieValue(navigation, 'REDIRECT_URI') ?? '';
      const xsrf = cookieValue(navigation, 'XSRF-TOKEN') ?? '';
      // A pre-login session, as the authorization redirect creates one to hold the OIDC state.
      const attribute = await api.post('/seam/attribute', {
        body: { state: 'pending' },
        headers: { cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf },
      });
      const preLogin = cookieValue(attribute, 'JSESSIONID') ?? '';
      assert.notEqual(preLogin, '');
      const user = await service.users.upsertFromLogin({
        issuer: 'https://idp.example',
        subject: 'alice',
        email: 'alice@example.com',
        emailVerified: true,
        name: 'Alice',
      });
      const login = await api.post('/seam/login', {
        body: { userId: user.id },
        headers: {
          cookie: `JSESSIONID=${preLogin}; XSRF-TOKEN=${xsrf}; REDIRECT_URI=${savedUrl}`,
          'x-xsrf-token': xsrf,
        },
      });
      assert.equal(login.status, 200);
      assert.deepEqual(login.body, { savedUrl: '/reservations?page=0' });
      assert.match(login.cookies.get('REDIRECT_URI') ?? '', /Expires=Thu, 01 Jan 1970/, 'used once');
      const sessionCookie = login.cookies.get('JSESSIONID') ?? '';
      assert.match(sessionCookie, /HttpOnly/);
      assert.match(sessionCookie, /SameSite=Lax/);
      assert.doesNotMatch(sessionCookie, /Secure/, 'plain http: no Secure flag');
      const signedIn = cookieValue(login, 'JSESSIONID') ?? '';
      assert.notEqual(signedIn, preLogin, 'session fixation: the id changes at login');
      const newXsrf = cookieValue(login, 'XSRF-TOKEN') ?? '';
      assert.notEqual(newXsrf, xsrf, 'the CSRF token is rotated at login');

      assert.equal(
        await service.app.sessions.store.find(preLogin),
        undefined,
        'the pre-login session is gone',
      );
      const me = await api.get('/me', { headers: { cookie: `JSESSIONID=${signedIn}` } });
      assert.equal(me.status, 200);
      assert.equal(me.body.email, 'alice@example.com');
      assert.equal(me.body.role, 'ROLE_USER');

      const logout = await api.post('/seam/logout', {
        headers: { cookie: `JSESSIONID=${signedIn}; XSRF-TOKEN=${newXsrf}`, 'x-xsrf-token': newXsrf },
      });
      assert.match(logout.cookies.get('JSESSIONID') ?? '', /Expires=Thu, 01 Jan 1970/);
      const afterLogout = await api.get('/me', { headers: { cookie: `JSESSIONID=${signedIn}` } });
      assert.equal(afterLogout.status, 401, 'the session is gone on the server, not only in the browser');
    });

    test('session attributes create a pre-login session and survive until login', async () => {
      const xsrf = 'C'.repeat(43);
      const set = await api.post('/seam/attribute', {
        body: { state: 'abc' },
        headers: { cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf },
      });
      const id = cookieValue(set, 'JSESSIONID') ?? '';
      assert.ok(id);
      const read = await api.get('/seam/attribute', { headers: { cookie: `JSESSIONID=${id}` } });
      assert.deepEqual(read.body, { state: 'abc' });
      const anonymous = await api.get('/me', { headers: { cookie: `JSESSIONID=${id}` } });
      assert.equal(anonymous.status, 401, 'a pre-login session does not authenticate');
    });

    test('idle timeout: activity slides the expiry; 30 idle minutes end the session', async () => {
      const session = await createTestSession(service);
      const call = () => api.get('/me', { session });
      assert.equal((await call()).status, 200);
      service.clock.advance(20 * 60_000);
      assert.equal((await call()).status, 200, 'used after 20 minutes: the expiry moves forward');
      service.clock.advance(20 * 60_000);
      assert.equal((await call()).status, 200, '40 minutes after creation but only 20 idle');
      service.clock.advance(30 * 60_000 + 1);
      const expired = await call();
      assert.equal(expired.status, 401);
      assert.equal((await service.app.sessions.store.deleteExpired()) >= 1, true);
    });

    test('the session cookie is Secure when the service is served over https', async () => {
      const https = await startTestService(driver, {
        env: { PUBLIC_BASE_URL: 'https://books.example' },
        beforeListen(app) {
          app.post<{ Body: { userId: string } }>('/seam/login', async (request, reply) =>
            app.sessions.start(request, reply, request.body.userId),
          );
        },
      });
      try {
        const user = await createTestSession(https);
        const login = await new ApiClient(https.url).post('/seam/login', {
          session: user,
          body: { userId: user.user.id },
        });
        assert.match(login.cookies.get('JSESSIONID') ?? '', /Secure/);
        assert.match(login.cookies.get('XSRF-TOKEN') ?? '', /Secure/);
      } finally {
        await https.close();
      }
    });

    test('users: new logins get ROLE_USER; a verified ADMIN_EMAILS address gets ROLE_ADMIN; roles persist', async () => {
      const users = service.users;
      const identity = { issuer: 'https://idp.example', name: 'X' };
      const plain = await users.upsertFromLogin({
        ...identity,
        subject: 'u1',
        email: 'u1@example.com',
        emailVerified: true,
      });
      assert.equal(plain.role, 'ROLE_USER');
      const unverified = await users.upsertFromLogin({
        ...identity,
        subject: 'mallory',
        email: 'Admin@Example.com',
        emailVerified: false,
      });
      assert.equal(unverified.role, 'ROLE_USER', 'an unverified admin email grants nothing');
      const verified = await users.upsertFromLogin({
        ...identity,
        subject: 'root',
        email: 'ADMIN@example.com',
        emailVerified: true,
      });
      assert.equal(verified.role, 'ROLE_ADMIN');
      const again = await users.upsertFromLogin({
        ...identity,
        subject: 'u1',
        email: 'u1@example.com',
        emailVerified: true,
        name: 'Renamed',
      });
      assert.equal(again.id, plain.id, 'the same issuer and subject is the same user');
      assert.equal(again.name, 'Renamed');
      assert.equal(await users.setRoleByEmail('U1@example.com', 'ROLE_ADMIN'), 1);
      const stillAdmin = await users.upsertFromLogin({
        ...identity,
        subject: 'u1',
        email: 'u1@example.com',
        emailVerified: true,
      });
      assert.equal(stillAdmin.role, 'ROLE_ADMIN', 'a login does not demote');
      assert.equal(await users.setRoleByEmail('nobody@example.com', 'ROLE_USER'), 0);
    });
  });
}
