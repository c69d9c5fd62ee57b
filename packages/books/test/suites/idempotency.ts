import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { requestFingerprint } from '../../src/plugins/app/idempotency.js';
import { ApiClient, type ApiResponse } from '../support/client.js';
import { createBook, SAMPLE_BOOK } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const HOUR_MS = 3_600_000;

/** What a replay must repeat: the status, the kept headers and the body. */
const answerOf = (response: ApiResponse) => ({
  status: response.status,
  contentType: response.headers.get('content-type'),
  location: response.headers.get('location'),
  etag: response.headers.get('etag'),
  body: response.body,
});

/**
 * Idempotency-Key on POST /books and POST …/reservations over real HTTP: replays of the first answer,
 * 422 for another request under the same key, 409 while the first is in flight, keys per user, 24 h,
 * and 20 concurrent POSTs with one key making one reservation.
 */
export function idempotencySuite(driver: Driver, skip: false | string = false) {
  describe(`Idempotency-Key (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let alice: TestSession;
    let bob: TestSession;

    before(async () => {
      service = await startTestService(driver, { env: { SESSION_IDLE_TIMEOUT: '10000h' } });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      alice = await createTestSession(service);
      bob = await createTestSession(service);
    });
    after(() => service?.close());

    const withKey = (key: string) => ({ 'idempotency-key': key });
    const count = async (sql: string, params: unknown[]) =>
      (await service.db.query<{ n: number }>(`select count(*)::int as n ${sql}`, params))[0]?.n;

    test('POST /books: a retry with the same key and body gets the first answer and creates nothing', async () => {
      const body = { ...SAMPLE_BOOK, title: 'Once only' };
      const first = await api.post('/books', { session: admin, body, headers: withKey('"book-1"') });
      assert.equal(first.status, 201);
      // Fields in another order are the same body; a bare key is the same key.
      const reordered = { synopsis: body.synopsis, author: body.author, title: body.title };
      const again = await api.post('/books', { session: admin, body: reordered, headers: withKey('book-1') });
      assert.deepEqual(answerOf(again), answerOf(first));
      assert.equal(await count("from books where title = 'Once only'", []), 1);

      const other = await api.post('/books', {
        session: admin,
        body: { ...body, title: 'Another' },
        headers: withKey('book-1'),
      });
      assert.equal(other.status, 422);
      assert.equal(other.body.code, 'IDEMPOTENCY_KEY_REUSED');
      assert.equal(await count("from books where title = 'Another'", []), 0);
    });

    test('POST …/reservations: replayed answers, errors included; another book under the key is 422', async () => {
      const book = await createBook(api, admin, { title: 'Kept answers', copies: 1 });
      const path = `/books/${book.id}/reservations`;
      const first = await api.post(path, { session: alice, headers: withKey('r-1') });
      assert.equal(first.status, 201);
      const retry = await api.post(path, { session: alice, headers: withKey('r-1') });
      assert.deepEqual(answerOf(retry), answerOf(first));
      // A new key is a new request: the one-open-reservation rule answers, and that answer is kept too.
      const second = await api.post(path, { session: alice, headers: withKey('r-2') });
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'RESERVATION_ALREADY_OPEN');
      assert.deepEqual(
        answerOf(await api.post(path, { session: alice, headers: withKey('r-2') })),
        answerOf(second),
        'the same problem, request id included',
      );
      const elsewhere = await createBook(api, admin, { title: 'Elsewhere' });
      const moved = await api.post(`/books/${elsewhere.id}/reservations`, {
        session: alice,
        headers: withKey('r-1'),
      });
      assert.equal(moved.status, 422, 'another URL is another request');
      assert.equal(await count('from reservations where book_id = $1', [book.id]), 1);
    });

    test('keys are per user; a key is kept 24 h', async () => {
      const book = await createBook(api, admin, { title: 'Per user', copies: 2 });
      const path = `/books/${book.id}/reservations`;
      const alices = await api.post(path, { session: alice, headers: withKey('shared') });
      const bobs = await api.post(path, { session: bob, headers: withKey('shared') });
      assert.deepEqual([alices.status, bobs.status], [201, 201]);
      assert.notEqual(alices.body.id, bobs.body.id);

      const body = { ...SAMPLE_BOOK, title: 'Day old' };
      const first = await api.post('/books', { session: admin, body, headers: withKey('daily') });
      service.clock.advance(24 * HOUR_MS - 1000);
      assert.equal(
        (await api.post('/books', { session: admin, body, headers: withKey('daily') })).body.id,
        first.body.id,
      );
      service.clock.advance(1000);
      const later = await api.post('/books', { session: admin, body, headers: withKey('daily') });
      assert.equal(later.status, 201);
      assert.notEqual(later.body.id, first.body.id, 'after 24 h the key is new again');
    });

    test('a key whose first request is still in flight is 409; after its lease a retry runs it', async () => {
      const book = await createBook(api, admin, { title: 'In flight', copies: 1 });
      const path = `/books/${book.id}/reservations`;
      const now = new Date(service.clock.nowMs);
      // What a request that claimed the key and has not answered yet leaves in the table.
      await service.db.query(
        `insert into idempotency_keys (user_id, key, fingerprint, created_at, expires_at, lease_until)
         values ($1, 'busy', $2, $3, $3::timestamptz + interval '1 day', $3::timestamptz + interval '1 minute')`,
        [alice.user.id, requestFingerprint('POST', path, undefined), now],
      );
      const busy = await api.post(path, { session: alice, headers: withKey('busy') });
      assert.equal(busy.status, 409);
      assert.equal(busy.body.code, 'IDEMPOTENCY_KEY_IN_FLIGHT');
      assert.equal(await count('from reservations where book_id = $1', [book.id]), 0);
      const otherBody = await api.post(`/books/${book.id}/reservations?x=1`, {
        session: alice,
        headers: withKey('busy'),
      });
      assert.equal(otherBody.status, 422, 'another request under a busy key');
      service.clock.advance(60_000);
      const taken = await api.post(path, { session: alice, headers: withKey('busy') });
      assert.equal(taken.status, 201, 'the process that held it died: the retry runs');
    });

    test('an invalid key is 400', async () => {
      for (const key of ['""', 'has space', 'x'.repeat(256)]) {
        const response = await api.post('/books', {
          session: admin,
          body: SAMPLE_BOOK,
          headers: withKey(key),
        });
        assert.equal(response.status, 400, key);
      }
    });

    test('20 concurrent POSTs with one key: one reservation, and 20 identical answers or 409s', async () => {
      const book = await createBook(api, admin, { title: 'Stampede', copies: 1 });
      const path = `/books/${book.id}/reservations`;
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => api.post(path, { session: bob, headers: withKey('stampede') })),
      );
      assert.equal(await count('from reservations where book_id = $1', [book.id]), 1);
      const created = responses.filter((r) => r.status === 201);
      const busy = responses.filter((r) => r.status === 409);
      assert.equal(created.length + busy.length, 20, JSON.stringify(responses.map((r) => r.status)));
      assert.ok(created.length >= 1);
      for (const r of created) assert.deepEqual(answerOf(r), answerOf(created[0] as ApiResponse));
      for (const r of busy) assert.equal(r.body.code, 'IDEMPOTENCY_KEY_IN_FLIGHT');
      // Once answered, every retry is the first answer.
      const retry = await api.post(path, { session: bob, headers: withKey('stampede') });
      assert.deepEqual(answerOf(retry), answerOf(created[0] as ApiResponse));
    });
  });
}
