import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const TOTAL_BOOKS = 25;

export function paginationSuite(driver: Driver, skip: false | string = false) {
  describe(`pagination and links (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let user: TestSession;

    const base = 'https://books.example/api';

    // Every test reads the same 25 books, created here, so any test can run alone. Titles repeat
    // (5 distinct), so the id tie-breaker decides the order within a title.
    before(async () => {
      service = await startTestService(driver, { env: { PUBLIC_BASE_URL: base } });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      user = await createTestSession(service);
      for (let i = 0; i < TOTAL_BOOKS; i += 1) {
        await createBook(api, admin, {
          title: `Title ${i % 5}`,
          author: `Author ${String(i).padStart(2, '0')}`,
        });
      }
    });
    after(() => service?.close());

    test('an empty collection keeps _embedded with an empty array', async () => {
      const empty = await startTestService(driver, { env: { PUBLIC_BASE_URL: base } });
      let response: Awaited<ReturnType<ApiClient['get']>>;
      try {
        response = await new ApiClient(empty.url).get('/books', { session: await createTestSession(empty) });
      } finally {
        await empty.close();
      }
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'application/hal+json; charset=utf-8');
      assert.deepEqual(response.body, {
        _embedded: { books: [] },
        _links: {
          self: { href: `${base}/books?page=0&size=20&sort=title%2Casc` },
          first: { href: `${base}/books?page=0&size=20&sort=title%2Casc` },
          last: { href: `${base}/books?page=0&size=20&sort=title%2Casc` },
        },
        page: { size: 20, totalElements: 0, totalPages: 0, number: 0 },
      });
    });

    test('first, middle, last and past-the-end pages carry the right links', async () => {
      const first = await api.get('/books?size=10', { session: user });
      assert.equal(first.body._embedded.books.length, 10);
      assert.deepEqual(first.body.page, { size: 10, totalElements: 25, totalPages: 3, number: 0 });
      assert.equal(first.body._links.prev, undefined);
      assert.equal(first.body._links.next.href, `${base}/books?page=1&size=10&sort=title%2Casc`);
      assert.equal(first.body._links.last.href, `${base}/books?page=2&size=10&sort=title%2Casc`);
      assert.equal(
        first.body._embedded.books[0]._links.self.href,
        `${base}/books/${first.body._embedded.books[0].id}`,
      );

      const middle = await api.get('/books?page=1&size=10', { session: user });
      assert.equal(middle.body._links.prev.href, `${base}/books?page=0&size=10&sort=title%2Casc`);
      assert.equal(middle.body._links.next.href, `${base}/books?page=2&size=10&sort=title%2Casc`);

      const last = await api.get('/books?page=2&size=10', { session: user });
      assert.equal(last.body._embedded.books.length, 5);
      assert.equal(last.body._links.next, undefined);
      assert.equal(last.body._links.prev.href, `${base}/books?page=1&size=10&sort=title%2Casc`);

      const past = await api.get('/books?page=7&size=10', { session: user });
      assert.deepEqual(past.body._embedded.books, []);
      assert.equal(past.body.page.number, 7);
      assert.equal(past.body._links.next, undefined);
      assert.equal(past.body._links.prev.href, `${base}/books?page=2&size=10&sort=title%2Casc`);

      // Walking every page visits every book exactly once, in title-then-id order.
      const seen = [
        ...first.body._embedded.books,
        ...middle.body._embedded.books,
        ...last.body._embedded.books,
      ];
      assert.equal(new Set(seen.map((b: { id: string }) => b.id)).size, TOTAL_BOOKS);
      const keys: string[] = seen.map((b: { title: string; id: string }) => `${b.title}|${b.id}`);
      // '|' sorts after every title character used here, so plain string order is title-then-id order.
      const sorted = [...keys].sort();
      assert.deepEqual(keys, sorted);
    });

    test('sort by another property and direction, repeated for secondary orders', async () => {
      const byAuthorDesc = await api.get('/books?size=100&sort=author,desc', { session: user });
      const authors = byAuthorDesc.body._embedded.books.map((b: { author: string }) => b.author);
      assert.deepEqual(authors, [...authors].sort().reverse());
      assert.match(byAuthorDesc.body._links.self.href, /sort=author%2Cdesc/);
      const twoKeys = await api.get('/books?size=100&sort=title,desc&sort=author', { session: user });
      const pairs = twoKeys.body._embedded.books.map(
        (b: { title: string; author: string }) => `${b.title}|${b.author}`,
      );
      const expected = [...pairs].sort((a: string, b: string) => {
        const [ta = '', aa = ''] = a.split('|');
        const [tb = '', ab = ''] = b.split('|');
        return ta === tb ? aa.localeCompare(ab) : tb.localeCompare(ta);
      });
      assert.deepEqual(pairs, expected);
      assert.match(twoKeys.body._links.self.href, /sort=title%2Cdesc&sort=author%2Casc/);
    });

    test('size limits and bad sorts are 400 problem details naming the parameter', async () => {
      const cases = [
        ['/books?size=0', 'size'],
        ['/books?size=101', 'size'],
        ['/books?page=-1', 'page'],
        ['/books?page=abc', 'page'],
        ['/books?sort=isbn', 'sort.0'],
        ['/books?sort=title,sideways', 'sort.0'],
        ['/reservations?sort=title', 'sort.0'],
        ['/reservations?status=LOST', 'status'],
        ['/reservations?userId=nope', 'userId'],
      ];
      for (const [path = '', field] of cases) {
        const response = await api.get(path, { session: user });
        assert.equal(response.status, 400, path);
        assert.equal(response.body.code, 'VALIDATION_FAILED');
        assert.ok(
          response.body.errors.some(
            (e: { location: string; field: string }) => e.location === 'query' && e.field === field,
          ),
          `${path}: ${JSON.stringify(response.body.errors)}`,
        );
      }
      const largest = await api.get('/books?size=100', { session: user });
      assert.equal(largest.status, 200);
      assert.equal(largest.body._embedded.books.length, TOTAL_BOOKS);
    });

    test('without PUBLIC_BASE_URL, links follow X-Forwarded-* only when TRUST_PROXY is on', async () => {
      for (const [trustProxy, expected] of [
        ['true', 'https://proxy.example'],
        ['false', null],
      ] as const) {
        const other = await startTestService(driver, { env: { TRUST_PROXY: trustProxy } });
        try {
          const session = await createTestSession(other);
          const response = await new ApiClient(other.url).get('/me', {
            session,
            headers: { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'proxy.example' },
          });
          assert.equal(response.body._links.self.href, `${expected ?? other.url}/me`);
        } finally {
          await other.close();
        }
      }
    });
  });
}
