import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient, type ApiResponse, type RequestOptions } from '../support/client.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const BOOK = { title: 'Dune', author: 'Frank Herbert', synopsis: 'Spice.' };
type Caller = 'anonymous' | 'user' | 'otherUser' | 'admin';
const CALLERS: Caller[] = ['anonymous', 'user', 'otherUser', 'admin'];

/** Every endpoint × anonymous, user, other user and admin, over real HTTP. */
export function accessMatrixSuite(driver: Driver, skip: false | string = false) {
  describe(`access matrix (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    const sessions = {} as Record<Exclude<Caller, 'anonymous'>, TestSession>;

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      sessions.user = await createTestSession(service, { role: 'ROLE_USER' });
      sessions.otherUser = await createTestSession(service, { role: 'ROLE_USER' });
      sessions.admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
    });
    after(() => service?.close());

    /** Anonymous callers still send a valid CSRF pair, so the 401 comes from authentication. */
    function as(caller: Caller, options: RequestOptions = {}): RequestOptions {
      if (caller !== 'anonymous') return { ...options, session: sessions[caller] };
      const xsrf = 'A'.repeat(43);
      return {
        ...options,
        headers: { cookie: `XSRF-TOKEN=${xsrf}`, 'x-xsrf-token': xsrf, ...options.headers },
      };
    }

    async function newBook(): Promise<string> {
      const response = await api.post('/books', { session: sessions.admin, body: BOOK });
      assert.equal(response.status, 201);
      return response.body.id;
    }

    async function newReservation(bookId: string, owner: TestSession): Promise<string> {
      const response = await api.post(`/books/${bookId}/reservations`, { session: owner });
      assert.equal(response.status, 201);
      return response.body.id;
    }

    async function expectMatrix(
      name: string,
      expected: Record<Caller, number>,
      call: (caller: Caller) => Promise<ApiResponse>,
    ) {
      const actual = {} as Record<Caller, number>;
      for (const caller of CALLERS) {
        const response = await call(caller);
        actual[caller] = response.status;
        if (response.status >= 400) {
          assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
        }
      }
      assert.deepEqual(actual, expected, name);
    }

    test('GET /books', () =>
      expectMatrix('list books', { anonymous: 401, user: 200, otherUser: 200, admin: 200 }, (c) =>
        api.get('/books', as(c)),
      ));

    test('POST /books', () =>
      expectMatrix('create book', { anonymous: 401, user: 403, otherUser: 403, admin: 201 }, (c) =>
        api.post('/books', as(c, { body: BOOK })),
      ));

    test('GET /books/{id}', async () => {
      const id = await newBook();
      await expectMatrix('get book', { anonymous: 401, user: 200, otherUser: 200, admin: 200 }, (c) =>
        api.get(`/books/${id}`, as(c)),
      );
    });

    test('PUT /books/{id}', async () => {
      const id = await newBook();
      await expectMatrix('update book', { anonymous: 401, user: 403, otherUser: 403, admin: 200 }, (c) =>
        api.put(`/books/${id}`, as(c, { body: { ...BOOK, title: `Dune (${c})` } })),
      );
    });

    test('DELETE /books/{id}', async () => {
      const id = await newBook();
      await expectMatrix('delete book', { anonymous: 401, user: 403, otherUser: 403, admin: 204 }, (c) =>
        api.delete(`/books/${id}`, as(c)),
      );
    });

    test('POST /books/{bookId}/reservations', async () => {
      const id = await newBook();
      await expectMatrix('reserve', { anonymous: 401, user: 201, otherUser: 201, admin: 201 }, (c) =>
        api.post(`/books/${id}/reservations`, as(c)),
      );
    });

    test('GET /reservations', () =>
      expectMatrix('list reservations', { anonymous: 401, user: 200, otherUser: 200, admin: 200 }, (c) =>
        api.get('/reservations', as(c)),
      ));

    test('GET /books/{bookId}/reservations/{reservationId}: owner or admin', async () => {
      const bookId = await newBook();
      const reservationId = await newReservation(bookId, sessions.user);
      await expectMatrix('get reservation', { anonymous: 401, user: 200, otherUser: 403, admin: 200 }, (c) =>
        api.get(`/books/${bookId}/reservations/${reservationId}`, as(c)),
      );
    });

    test('DELETE /books/{bookId}/reservations/{reservationId}: owner or admin', async () => {
      const bookId = await newBook();
      const ownersReservation = await newReservation(bookId, sessions.user);
      const adminsTarget = await newReservation(bookId, sessions.otherUser);
      const statuses = {
        anonymous: (await api.delete(`/books/${bookId}/reservations/${ownersReservation}`, as('anonymous')))
          .status,
        otherUser: (await api.delete(`/books/${bookId}/reservations/${ownersReservation}`, as('otherUser')))
          .status,
        user: (await api.delete(`/books/${bookId}/reservations/${ownersReservation}`, as('user'))).status,
        admin: (await api.delete(`/books/${bookId}/reservations/${adminsTarget}`, as('admin'))).status,
      };
      assert.deepEqual(statuses, { anonymous: 401, otherUser: 403, user: 200, admin: 200 });
    });

    test('POST /books/{bookId}/reservations/{reservationId}/collect: admin only, even for the owner', async () => {
      const bookId = await newBook();
      const reservationId = await newReservation(bookId, sessions.user);
      await expectMatrix('collect', { anonymous: 401, user: 403, otherUser: 403, admin: 200 }, (c) =>
        api.post(`/books/${bookId}/reservations/${reservationId}/collect`, as(c)),
      );
    });

    test('POST /books/{bookId}/reservations/{reservationId}/return: admin only, even for the owner', async () => {
      const bookId = await newBook();
      const reservationId = await newReservation(bookId, sessions.user);
      const target = `/books/${bookId}/reservations/${reservationId}`;
      assert.equal((await api.post(`${target}/collect`, as('admin'))).status, 200);
      await expectMatrix('return', { anonymous: 401, user: 403, otherUser: 403, admin: 200 }, (c) =>
        api.post(`${target}/return`, as(c)),
      );
    });

    test('POST /books/{bookId}/reservations/{reservationId}/renew: the holder or an admin', async () => {
      const bookId = await newBook();
      const reservationId = await newReservation(bookId, sessions.user);
      const target = `/books/${bookId}/reservations/${reservationId}`;
      assert.equal((await api.post(`${target}/collect`, as('admin'))).status, 200);
      // Two renewals (the MAX_RENEWALS default): the holder's, then the admin's.
      await expectMatrix('renew', { anonymous: 401, user: 200, otherUser: 403, admin: 200 }, (c) =>
        api.post(`${target}/renew`, as(c)),
      );
    });

    test('GET /me', () =>
      expectMatrix('me', { anonymous: 401, user: 200, otherUser: 200, admin: 200 }, (c) =>
        api.get('/me', as(c)),
      ));

    test('GET /me tells who is signed in', async () => {
      const response = await api.get('/me', as('admin'));
      assert.equal(response.body.id, sessions.admin.user.id);
      assert.equal(response.body.role, 'ROLE_ADMIN');
      assert.equal(response.body._links.self.href, `${service.url}/me`);
    });

    test('a browser navigation without a session is redirected to /login, and the URL is saved', async () => {
      const response = await api.get('/books?page=1', {
        headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
      });
      assert.equal(response.status, 302);
      assert.equal(response.headers.get('location'), '/login');
      // Kept in a cookie (Spring's CookieRequestCache), so an anonymous navigation writes no session row.
      assert.equal(response.cookies.get('JSESSIONID'), undefined);
      const saved = response.cookies.get('REDIRECT_URI') ?? '';
      assert.match(saved, /HttpOnly/);
      assert.match(saved, /SameSite=Lax/);
      const value = saved.split(';')[0]?.split('=')[1] ?? '';
      assert.equal(Buffer.from(value, 'base64url').toString(), '/books?page=1');
    });

    test('API callers (curl, fetch, XHR) get 401, not a redirect', async () => {
      for (const accept of ['*/*', 'application/json', 'application/problem+json', '']) {
        const response = await api.get('/books', { headers: { accept } });
        assert.equal(response.status, 401, `Accept: ${accept}`);
        assert.equal(response.body.code, 'UNAUTHENTICATED');
      }
      const xhr = await api.get('/books', {
        headers: { accept: 'text/html', 'x-requested-with': 'XMLHttpRequest' },
      });
      assert.equal(xhr.status, 401);
    });
  });
}
