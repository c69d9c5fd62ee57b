import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database } from '../../src/db/database.js';
import { ApiClient } from '../support/client.js';
import { createBook } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession } from '../support/test-sessions.js';

const ATTEMPTS = 50;
const USERS = 50;

/**
 * The book's invariants, read straight from the tables: READY + COLLECTED never exceeds copies, the
 * maintained counters match the rows, and a free copy never sits next to a waiting reservation.
 */
async function assertBookInvariants(db: Database, bookId: string): Promise<void> {
  const [row] = await db.query<{
    copies: number;
    held: number;
    waiting: number;
    counted_held: number;
    counted_waiting: number;
  }>(
    `select b.copies, b.held, b.waiting,
       (select count(*)::int from reservations r where r.book_id = b.id and r.status in ('READY', 'COLLECTED')) as counted_held,
       (select count(*)::int from reservations r where r.book_id = b.id and r.status = 'WAITING') as counted_waiting
     from books b where b.id = $1`,
    [bookId],
  );
  assert.ok(row);
  assert.ok(row.counted_held <= row.copies, `held ${row.counted_held} > copies ${row.copies}`);
  assert.equal(row.held, row.counted_held);
  assert.equal(row.waiting, row.counted_waiting);
  if (row.counted_waiting > 0)
    assert.equal(row.counted_held, row.copies, 'a copy is free while someone waits');
}

export function concurrencySuite(driver: Driver, skip: false | string = false) {
  describe(`concurrent reservations (${driver})`, { skip }, () => {
    let service: TestService;

    before(async () => {
      service = await startTestService(driver);
    });
    after(() => service?.close());

    test(`${ATTEMPTS} simultaneous attempts by one user leave exactly one open reservation`, async () => {
      const api = new ApiClient(service.url);
      const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      const user = await createTestSession(service);
      const book = await createBook(api, admin);
      const responses = await Promise.all(
        Array.from({ length: ATTEMPTS }, () => api.post(`/books/${book.id}/reservations`, { session: user })),
      );
      const statuses = responses.map((response) => response.status);
      assert.equal(statuses.filter((status) => status === 201).length, 1, statuses.join(','));
      assert.equal(statuses.filter((status) => status === 409).length, ATTEMPTS - 1, statuses.join(','));
      const rows = await service.db.query<{ open: number }>(
        "select count(*)::int as open from reservations where book_id = $1 and user_id = $2 and status in ('WAITING', 'READY', 'COLLECTED')",
        [book.id, user.user.id],
      );
      assert.equal(rows[0]?.open, 1);
    });

    test(`${USERS} users reserving, cancelling, collecting and returning at once: copies are never exceeded, the queue stays dense`, async () => {
      const api = new ApiClient(service.url);
      const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      const users = await Promise.all(Array.from({ length: USERS }, () => createTestSession(service)));
      const book = await createBook(api, admin, { copies: 3 });
      const reserved = await Promise.all(
        users.map((user) => api.post(`/books/${book.id}/reservations`, { session: user })),
      );
      assert.ok(reserved.every((response) => response.status === 201));
      const ready = reserved.filter((response) => response.body.status === 'READY');
      assert.equal(ready.length, 3, 'exactly the copies are held');
      await assertBookInvariants(service.db, book.id);
      const positions = reserved
        .filter((response) => response.body.status === 'WAITING')
        .map((response) => response.body.queuePosition as number)
        .sort((a, b) => a - b);
      assert.deepEqual(
        positions,
        Array.from({ length: USERS - 3 }, (_, i) => i + 1),
        'positions 1..n at admission',
      );

      // Everyone at once: half cancel theirs; the admin collects and returns whatever is READY, twice.
      const path = (response: (typeof reserved)[number]) =>
        `/books/${book.id}/reservations/${response.body.id}`;
      const byUser = reserved.map((response, i) => ({ response, user: users[i] }));
      const adminRound = async () => {
        const list = await api.get(`/reservations?status=READY&size=100`, { session: admin });
        await Promise.all(
          list.body._embedded.reservations
            .filter((r: { bookId: string }) => r.bookId === book.id)
            .map(async (r: { id: string }) => {
              const target = `/books/${book.id}/reservations/${r.id}`;
              const collected = await api.post(`${target}/collect`, { session: admin });
              if (collected.status === 200) await api.post(`${target}/return`, { session: admin });
              else assert.equal(collected.status, 409);
            }),
        );
      };
      const outcomes = await Promise.all([
        ...byUser
          .filter((_, i) => i % 2 === 0)
          .map(({ response, user }) => api.delete(path(response), { session: user })),
        adminRound(),
        adminRound(),
      ]);
      for (const outcome of outcomes) {
        if (outcome !== undefined)
          assert.ok([200, 409].includes(outcome.status), JSON.stringify(outcome.body));
      }
      await assertBookInvariants(service.db, book.id);

      const all = await api.get(`/reservations?size=100`, { session: admin });
      const mine = all.body._embedded.reservations.filter((r: { bookId: string }) => r.bookId === book.id);
      const waiting = mine
        .filter((r: { status: string }) => r.status === 'WAITING')
        .map((r: { queuePosition: number }) => r.queuePosition)
        .sort((a: number, b: number) => a - b);
      assert.deepEqual(
        waiting,
        Array.from({ length: waiting.length }, (_, i) => i + 1),
        'the queue is dense',
      );
      const held = mine.filter((r: { status: string }) => ['READY', 'COLLECTED'].includes(r.status)).length;
      assert.ok(held <= 3);
      const current = (await api.get(`/books/${book.id}`, { session: admin })).body;
      assert.equal(current.available, 3 - held);
      assert.equal(current.waiting, waiting.length);
    });

    test('the database itself refuses more READY or COLLECTED reservations than copies', async () => {
      const api = new ApiClient(service.url);
      const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      const [a, b] = await Promise.all([createTestSession(service), createTestSession(service)]);
      const book = await createBook(api, admin, { copies: 1 });
      await api.post(`/books/${book.id}/reservations`, { session: a });
      const waiting = await api.post(`/books/${book.id}/reservations`, { session: b });
      assert.equal(waiting.body.status, 'WAITING');
      await assert.rejects(
        service.db.query(
          "update reservations set status = 'READY', ready_at = now(), pickup_deadline = now() where id = $1",
          [waiting.body.id],
        ),
        /books_held_within_copies/,
      );
      await assert.rejects(
        service.db.query('update books set copies = 0 where id = $1', [book.id]),
        /books_held_within_copies/,
      );
    });

    test('a book being deleted while reservations arrive never keeps an orphan open reservation', async () => {
      const api = new ApiClient(service.url);
      const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      const users = await Promise.all(Array.from({ length: 10 }, () => createTestSession(service)));
      const book = await createBook(api, admin);
      const [deletion, ...reservations] = await Promise.all([
        api.delete(`/books/${book.id}`, { session: admin }),
        ...users.map((user) => api.post(`/books/${book.id}/reservations`, { session: user })),
      ]);
      const reserved = reservations.filter((response) => response.status === 201).length;
      assert.ok(reservations.every((response) => [201, 404].includes(response.status)));
      if (deletion?.status === 204) {
        // Deleted first: later attempts found no book; earlier ones would have blocked the delete.
        assert.equal(reserved, 0);
      } else {
        assert.equal(deletion?.status, 409);
        assert.ok(reserved > 0);
      }
    });
  });
}
