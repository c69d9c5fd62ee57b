import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient, type ApiResponse } from '../support/client.js';
import { createBook, reserve, SAMPLE_BOOK } from '../support/fixtures-api.js';
import { rawRequest } from '../support/raw-http.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const PROBLEM_JSON = 'application/problem+json; charset=utf-8';

function assertProblem(
  response: ApiResponse | { status: number; body: unknown },
  status: number,
  code: string,
) {
  assert.equal(response.status, status, JSON.stringify(response.body));
  const body = (typeof response.body === 'string' ? JSON.parse(response.body) : response.body) as {
    code: string;
    status: number;
  };
  assert.equal(body.code, code);
  assert.equal(body.status, status);
  assert.doesNotMatch(JSON.stringify(body), /FST_ERR/);
}

/** Inputs that used to reach PostgreSQL or slip through as framework errors; each gets a 4xx problem. */
export function hostileInputSuite(driver: Driver, skip: false | string = false) {
  describe(`hostile input and framework-level errors (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let user: TestSession;

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      user = await createTestSession(service);
    });
    after(() => service?.close());

    const bookCount = async () => (await api.get('/books', { session: admin })).body.page.totalElements;

    test('infinite and out-of-range page numbers are 400, on /books and /reservations', async () => {
      for (const path of ['/books', '/reservations']) {
        for (const value of ['Infinity', '-Infinity', '1e400', '-1e400', 'NaN', '1e10']) {
          for (const name of ['page', 'size']) {
            const response = await api.get(`${path}?${name}=${value}`, { session: user });
            assertProblem(response, 400, 'VALIDATION_FAILED');
            assert.equal(response.body.errors[0].location, 'query', `${path}?${name}=${value}`);
          }
        }
      }
    });

    test('NUL characters and lone surrogates are refused in every text field; nothing is stored', async () => {
      const before = await bookCount();
      const existing = await createBook(api, admin);
      for (const field of ['title', 'author', 'synopsis'] as const) {
        const nul = await api.post('/books', {
          session: admin,
          body: { ...SAMPLE_BOOK, [field]: 'a\u0000b' },
        });
        assertProblem(nul, 400, 'VALIDATION_FAILED');
        assert.deepEqual(
          nul.body.errors.map((e: { field: string }) => e.field),
          [field],
        );
        for (const surrogate of ['\\ud800', '\\udfff', 'x\\udc00\\ud800y']) {
          const raw = JSON.stringify({ ...SAMPLE_BOOK, [field]: 'PLACEHOLDER' }).replace(
            'PLACEHOLDER',
            surrogate,
          );
          for (const method of ['POST', 'PUT'] as const) {
            const path = method === 'POST' ? '/books' : `/books/${existing.id}`;
            const response = await api.request(method, path, {
              session: admin,
              rawBody: raw,
              headers: { 'content-type': 'application/json' },
            });
            assertProblem(response, 400, 'VALIDATION_FAILED');
          }
        }
      }
      // A surrogate pair (an emoji) is fine.
      const emoji = await createBook(api, admin, { title: 'Dune \u{1F3DC}' });
      assert.equal(emoji.title, 'Dune \u{1F3DC}');
      assert.equal(await bookCount(), before + 2);
      assert.equal(
        (await api.get(`/books/${existing.id}`, { session: admin })).body.title,
        SAMPLE_BOOK.title,
      );
    });

    test('titles and authors made only of invisible characters are refused', async () => {
      const invisible = [
        '\u200b\u200b', // zero-width spaces
        '\u200c\u200d', // zero-width (non-)joiners
        '\u2060\ufeff', // word joiner, BOM
        '\u00a0\u3000\u2003', // no-break, ideographic and em spaces
        '\u180e\u2028', // Mongolian vowel separator, line separator
        ' \t\n',
      ];
      for (const text of invisible) {
        for (const field of ['title', 'author'] as const) {
          const response = await api.post('/books', {
            session: admin,
            body: { ...SAMPLE_BOOK, [field]: text },
          });
          assertProblem(response, 400, 'VALIDATION_FAILED');
        }
      }
      const visible = await createBook(api, admin, { title: '\u200bDune\u200b' });
      assert.equal(visible.title, '\u200bDune\u200b');
    });

    test('a Content-Encoding the service does not decode is 415, and the body is not parsed', async () => {
      const before = await bookCount();
      for (const encoding of ['gzip', 'br', 'deflate', 'x-unknown']) {
        const response = await api.post('/books', {
          session: admin,
          body: SAMPLE_BOOK,
          headers: { 'content-encoding': encoding },
        });
        assertProblem(response, 415, 'UNSUPPORTED_CONTENT_ENCODING');
      }
      const identity = await api.post('/books', {
        session: admin,
        body: SAMPLE_BOOK,
        headers: { 'content-encoding': 'identity' },
      });
      assert.equal(identity.status, 201);
      assert.equal(await bookCount(), before + 1);
    });

    test('a 10 MB body on a reservation POST is answered 413, with or without Content-Length', async () => {
      const book = await createBook(api, admin);
      const body = Buffer.alloc(10 * 1024 * 1024, 'x');
      for (const framing of ['content-length', 'chunked'] as const) {
        const headers: Record<string, string> = {
          cookie: user.cookie,
          'x-xsrf-token': user.xsrf,
          accept: 'application/json',
          'content-type': 'application/json',
        };
        if (framing === 'chunked') headers['transfer-encoding'] = 'chunked';
        else headers['content-length'] = String(body.length);
        const response = await rawRequest(`${service.url}/books/${book.id}/reservations`, {
          method: 'POST',
          headers,
          body,
        });
        assert.equal(response.headers['content-type'], PROBLEM_JSON);
        assertProblem(response, 413, 'BODY_TOO_LARGE');
      }
    });

    test('upper-case UUIDs name the same book and reservation everywhere', async () => {
      const book = await createBook(api, admin);
      const reservation = await reserve(api, user, book.id);
      const upperBook = book.id.toUpperCase();
      const upperReservation = reservation.id.toUpperCase();
      const path = `/books/${upperBook}/reservations/${upperReservation}`;
      const got = await api.get(path, { session: user });
      assert.equal(got.status, 200, JSON.stringify(got.body));
      assert.equal(got.body.id, reservation.id);
      const mine = await api.get(`/reservations?userId=${user.user.id.toUpperCase()}`, { session: user });
      assert.equal(mine.status, 200);
      assert.equal(mine.body.page.totalElements, 1);
      const cancelled = await api.delete(path, { session: user });
      assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
      assert.equal(cancelled.body.status, 'CANCELLED');
      assert.equal(
        cancelled.body._links.self.href,
        `${service.url}/books/${book.id}/reservations/${reservation.id}`,
      );
      const again = await api.post(`/books/${upperBook}/reservations`, { session: user });
      assert.equal(again.status, 201);
      assert.equal(again.body.bookId, book.id);
    });

    test('a known path with another method is 405 with Allow; OPTIONS is 204 with Allow', async () => {
      const book = await createBook(api, admin);
      for (const [method, path, allow] of [
        ['PATCH', '/books', 'GET, HEAD, OPTIONS, POST'],
        ['DELETE', '/books', 'GET, HEAD, OPTIONS, POST'],
        ['POST', `/books/${book.id}`, 'DELETE, GET, HEAD, OPTIONS, PUT'],
        ['PUT', '/reservations', 'GET, HEAD, OPTIONS'],
        ['DELETE', '/me', 'GET, HEAD, OPTIONS'],
      ] as const) {
        const response = await api.request(method, path, { session: admin });
        assertProblem(response, 405, 'METHOD_NOT_ALLOWED');
        assert.equal(response.headers.get('allow'), allow, `${method} ${path}`);
        assert.equal(response.headers.get('content-type'), PROBLEM_JSON);
      }
      const options = await api.request('OPTIONS', `/books/${book.id}/reservations`, { session: admin });
      assert.equal(options.status, 204);
      assert.equal(options.headers.get('allow'), 'OPTIONS, POST');
      assertProblem(await api.get('/no-such-path', { session: admin }), 404, 'ROUTE_NOT_FOUND');
    });

    test('an Accept header that rules out HAL and JSON is 406; JSON, HAL and wildcards are served', async () => {
      for (const accept of ['text/csv', 'application/xml', 'text/*', 'application/hal+json;q=0']) {
        const response = await api.get('/books', { session: user, headers: { accept } });
        assertProblem(response, 406, 'NOT_ACCEPTABLE');
        assert.equal(response.headers.get('content-type'), PROBLEM_JSON);
      }
      for (const accept of [
        'application/json',
        'application/hal+json',
        '*/*',
        'application/*',
        'text/csv, */*;q=0.1',
      ]) {
        const response = await api.get('/books', { session: user, headers: { accept } });
        assert.equal(response.status, 200, accept);
      }
      // Signing in comes first: an anonymous caller learns it must sign in, not what it may accept.
      const anonymous = await api.get('/books', { headers: { accept: 'text/csv' } });
      assert.equal(anonymous.status, 401);
    });

    test('an over-long URL is 414 and over-large headers are 431, both as problem details', async () => {
      const longUrl = await fetch(`${service.url}/books?sort=${'a'.repeat(9000)}`, {
        headers: { cookie: user.cookie, accept: 'application/json' },
      });
      assert.equal(longUrl.status, 414);
      assert.equal(longUrl.headers.get('content-type'), PROBLEM_JSON);
      assertProblem({ status: 414, body: await longUrl.text() }, 414, 'URI_TOO_LONG');

      const bigHeaders = await fetch(`${service.url}/books`, {
        headers: { cookie: user.cookie, 'x-padding': 'p'.repeat(20_000) },
      });
      assert.equal(bigHeaders.status, 431);
      assert.equal(bigHeaders.headers.get('content-type'), PROBLEM_JSON);
      assert.equal(bigHeaders.headers.get('x-content-type-options'), 'nosniff');
      assertProblem({ status: 431, body: await bigHeaders.text() }, 431, 'HEADERS_TOO_LARGE');
    });

    test('a missing body on an operation that needs one is 400, whatever the Content-Type', async () => {
      const book = await createBook(api, admin);
      for (const [method, path] of [
        ['POST', '/books'],
        ['PUT', `/books/${book.id}`],
      ] as const) {
        assertProblem(await api.request(method, path, { session: admin }), 400, 'BODY_REQUIRED');
        const malformedPath = await fetch(`${service.url}/books/%`, { headers: { cookie: admin.cookie } });
        assert.equal(((await malformedPath.json()) as { instance: string }).instance, '/books/%25');
      }
    });

    test('framework errors carry our stable codes, never FST_ERR_*', async () => {
      const malformed = await api.post('/books', {
        session: admin,
        rawBody: '{"title":',
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(malformed, 400, 'MALFORMED_JSON');
      const empty = await api.post('/books', {
        session: admin,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      assertProblem(empty, 400, 'EMPTY_JSON_BODY');
      const text = await api.post('/books', {
        session: admin,
        rawBody: 'title=Dune',
        headers: { 'content-type': 'text/plain' },
      });
      assertProblem(text, 415, 'UNSUPPORTED_MEDIA_TYPE');
      const badUrl = await fetch(`${service.url}/books/%E0%A4%A`, { headers: { cookie: user.cookie } });
      assert.equal(badUrl.status, 400);
      assertProblem({ status: 400, body: await badUrl.text() }, 400, 'MALFORMED_URL');
      const longId = await fetch(`${service.url}/books/${'a'.repeat(200)}`, {
        headers: { cookie: user.cookie },
      });
      assertProblem({ status: longId.status, body: await longId.text() }, 414, 'PATH_SEGMENT_TOO_LONG');
    });
  });
}
