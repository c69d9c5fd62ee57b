import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type LoginEnvironment, loginSession, startLoginEnvironment } from '../support/login-environment.js';
import { type Driver, startTestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const DAY_MS = 86_400_000;

/**
 * The reservation workflow over real HTTP, with alice, bob, carol and admin signed in through the
 * development identity provider. The service's clock is the test's: expiry is tested by moving it.
 */
export function workflowSuite(driver: Driver, skip: false | string = false) {
  describe(`reservation workflow (${driver})`, { skip }, () => {
    let env: LoginEnvironment;
    let api: ApiClient;
    let alice: TestSession;
    let bob: TestSession;
    let carol: TestSession;
    let admin: TestSession;

    before(async () => {
      // Sessions must outlive the days the clock is moved by.
      env = await startLoginEnvironment(driver, { PICKUP_DAYS: '3', SESSION_IDLE_TIMEOUT: '10000h' });
      api = new ApiClient(env.app);
      alice = await loginSession(env, 'alice');
      bob = await loginSession(env, 'bob');
      carol = await loginSession(env, 'carol');
      admin = await loginSession(env, 'admin');
    });
    after(() => env?.close());

    const path = (reservation: { bookId: string; id: string }) =>
      `/books/${reservation.bookId}/reservations/${reservation.id}`;
    const read = async (who: TestSession, reservation: { bookId: string; id: string }) => {
      const response = await api.get(path(reservation), { session: who });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };
    const step = async (
      who: TestSession,
      transition: 'cancel' | 'collect' | 'return',
      reservation: { bookId: string; id: string },
    ) => {
      const response =
        transition === 'cancel'
          ? await api.delete(path(reservation), { session: who })
          : await api.post(`${path(reservation)}/${transition}`, { session: who });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };
    /** How many audit events the book has (the admin reads GET /audit). */
    const auditCount = async (bookId: string): Promise<number> =>
      (await api.get(`/audit?bookId=${bookId}&size=1`, { session: admin })).body.page.totalElements;
    const book = async (id: string, who: TestSession = admin) =>
      (await api.get(`/books/${id}`, { session: who })).body;

    test('one copy, three users: READY, then a queue; cancelling the READY one promotes the first in line', async () => {
      const dune = await createBook(api, admin, { copies: 1 });
      assert.deepEqual([dune.copies, dune.available, dune.waiting], [1, 1, 0]);
      const first = await reserve(api, alice, dune.id);
      assert.equal(first.status, 'READY');
      assert.equal(first.queuePosition, null);
      assert.equal(first.readyAt, first.reservedAt);
      assert.equal(Date.parse(first.pickupDeadline) - Date.parse(first.readyAt), 3 * DAY_MS);
      const second = await reserve(api, bob, dune.id);
      const third = await reserve(api, carol, dune.id);
      assert.deepEqual([second.status, second.queuePosition], ['WAITING', 1]);
      assert.deepEqual([third.status, third.queuePosition], ['WAITING', 2]);
      assert.equal(second.readyAt, null);
      assert.deepEqual([(await book(dune.id)).available, (await book(dune.id)).waiting], [0, 2]);

      const cancelled = await step(alice, 'cancel', first);
      assert.equal(cancelled.status, 'CANCELLED');
      assert.ok(cancelled.cancelledAt);
      const promoted = await read(bob, second);
      assert.equal(promoted.status, 'READY');
      assert.equal(promoted.queuePosition, null);
      assert.ok(promoted.readyAt && promoted.pickupDeadline);
      assert.equal((await read(carol, third)).queuePosition, 1, 'the queue closes up');
      assert.deepEqual([(await book(dune.id)).available, (await book(dune.id)).waiting], [0, 1]);
    });

    test('two copies, three users: collect and return; a return promotes the next in line', async () => {
      const emma = await createBook(api, admin, { title: 'Emma', copies: 2 });
      const a = await reserve(api, alice, emma.id);
      const b = await reserve(api, bob, emma.id);
      const c = await reserve(api, carol, emma.id);
      assert.deepEqual([a.status, b.status, c.status, c.queuePosition], ['READY', 'READY', 'WAITING', 1]);
      const collected = await step(admin, 'collect', a);
      assert.equal(collected.status, 'COLLECTED');
      assert.ok(collected.collectedAt);
      assert.equal((await book(emma.id)).available, 0, 'a lent copy stays out');
      assert.equal((await read(carol, c)).status, 'WAITING');
      const returned = await step(admin, 'return', a);
      assert.equal(returned.status, 'RETURNED');
      assert.ok(returned.returnedAt);
      assert.equal(returned.collectedAt, collected.collectedAt);
      const carols = await read(carol, c);
      assert.equal(carols.status, 'READY', 'the returned copy went to the queue in the same transaction');
      assert.deepEqual([(await book(emma.id)).available, (await book(emma.id)).waiting], [0, 0]);
    });

    test('two users, one copy: expiry when the clock passes the deadline, lazily on a read', async () => {
      const book1 = await createBook(api, admin, { title: 'Middlemarch', copies: 1 });
      const held = await reserve(api, alice, book1.id);
      const queued = await reserve(api, bob, book1.id);
      env.service.clock.advance(3 * DAY_MS - 1000);
      assert.equal((await read(alice, held)).status, 'READY', 'one second before the deadline');
      env.service.clock.advance(2000);
      const expired = await read(alice, held);
      assert.equal(expired.status, 'EXPIRED');
      assert.equal(expired.expiredAt, held.pickupDeadline);
      const next = await read(bob, queued);
      assert.equal(next.status, 'READY');
      assert.equal(Date.parse(next.readyAt), env.service.clock.nowMs);
      const refused = await api.post(`${path(held)}/collect`, { session: admin });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'ILLEGAL_TRANSITION_EXPIRED_TO_COLLECTED');
    });

    test('raising copies promotes waiting reservations; lowering below the held copies is 409', async () => {
      const fields = { title: 'Persuasion', author: 'Jane Austen', synopsis: 'Second chances.' };
      const created = await createBook(api, admin, { ...fields, copies: 0 });
      const a = await reserve(api, alice, created.id);
      const b = await reserve(api, bob, created.id);
      assert.deepEqual([a.status, b.status], ['WAITING', 'WAITING']);
      const raised = await api.put(`/books/${created.id}`, {
        session: admin,
        body: { ...fields, copies: 1 },
      });
      assert.equal(raised.status, 200);
      assert.deepEqual([raised.body.available, raised.body.waiting], [0, 1]);
      assert.equal((await read(alice, a)).status, 'READY');
      assert.equal((await read(bob, b)).queuePosition, 1);
      const lowered = await api.put(`/books/${created.id}`, {
        session: admin,
        body: { ...fields, copies: 0 },
      });
      assert.equal(lowered.status, 409);
      assert.equal(lowered.body.code, 'COPIES_BELOW_HELD');
      const omitted = await api.put(`/books/${created.id}`, { session: admin, body: fields });
      assert.equal(omitted.status, 200, 'copies left out means 1, which is what is held');
      assert.equal(omitted.body.copies, 1);
    });

    test('one open reservation per user and book; after RETURNED the user may reserve again', async () => {
      const b = await createBook(api, admin, { title: 'Ulysses', copies: 1 });
      const r = await reserve(api, alice, b.id);
      for (const status of ['READY', 'COLLECTED']) {
        const again = await api.post(`/books/${b.id}/reservations`, { session: alice });
        assert.equal(again.status, 409, status);
        assert.equal(again.body.code, 'RESERVATION_ALREADY_OPEN');
        if (status === 'READY') await step(admin, 'collect', r);
      }
      await step(admin, 'return', r);
      const renewed = await reserve(api, alice, b.id);
      assert.equal(renewed.status, 'READY');
      const waiting = await reserve(api, bob, b.id);
      const twice = await api.post(`/books/${b.id}/reservations`, { session: bob });
      assert.equal(twice.status, 409, 'WAITING is open too');
      assert.equal(waiting.status, 'WAITING');
    });

    test('every illegal transition is 409 naming the transition; every legal one is 200', async () => {
      // Each state on its own book, so no step changes another's queue. EXPIRED first: it moves the clock.
      const inState = async (state: string) => {
        const b = await createBook(api, admin, {
          title: `State ${state}`,
          copies: state === 'WAITING' ? 0 : 1,
        });
        const r = await reserve(api, alice, b.id);
        if (state === 'EXPIRED') {
          env.service.clock.advance(4 * DAY_MS);
          assert.equal((await read(alice, r)).status, 'EXPIRED');
        }
        if (state === 'CANCELLED') await step(alice, 'cancel', r);
        if (state === 'COLLECTED' || state === 'RETURNED') await step(admin, 'collect', r);
        if (state === 'RETURNED') await step(admin, 'return', r);
        return r;
      };
      const legal: Record<string, string[]> = {
        WAITING: ['cancel'],
        READY: ['cancel', 'collect'],
        COLLECTED: ['return'],
        RETURNED: [],
        CANCELLED: [],
        EXPIRED: [],
      };
      const target = { cancel: 'CANCELLED', collect: 'COLLECTED', return: 'RETURNED' } as const;
      for (const state of ['EXPIRED', 'WAITING', 'READY', 'COLLECTED', 'RETURNED', 'CANCELLED']) {
        for (const transition of ['cancel', 'collect', 'return'] as const) {
          const r = await inState(state);
          const recorded = await auditCount(r.bookId);
          const response =
            transition === 'cancel'
              ? await api.delete(path(r), { session: admin })
              : await api.post(`${path(r)}/${transition}`, { session: admin });
          if (legal[state]?.includes(transition)) {
            assert.equal(response.status, 200, `${state} → ${transition}`);
            assert.equal(response.body.status, target[transition]);
            assert.ok((await auditCount(r.bookId)) > recorded, 'a transition is in the audit log');
          } else {
            assert.equal(response.status, 409, `${state} → ${transition}`);
            assert.equal(response.body.code, `ILLEGAL_TRANSITION_${state}_TO_${target[transition]}`);
            assert.equal((await read(admin, r)).status, state, 'a refused transition changes nothing');
            assert.equal(await auditCount(r.bookId), recorded, 'and leaves no audit event');
          }
        }
      }
    });

    test('links offer only what the caller may do now', async () => {
      const b = await createBook(api, admin, { title: 'Links', copies: 1 });
      assert.ok((await book(b.id, alice))._links.reserve, 'alice may reserve');
      const r = await reserve(api, alice, b.id);
      assert.equal((await book(b.id, alice))._links.reserve, undefined, 'not twice');
      assert.ok((await book(b.id, bob))._links.reserve, 'bob still may');
      const listed = await api.get('/books?size=100', { session: alice });
      const inList = listed.body._embedded.books.find((x: { id: string }) => x.id === b.id);
      assert.equal(inList._links.reserve, undefined);
      const self = `${env.app}${path(r)}`;

      const keys = (links: object) => Object.keys(links).sort();
      assert.deepEqual(keys(r._links), ['book', 'cancel', 'self']);
      assert.equal(r._links.cancel.href, self);
      const asAdmin = await read(admin, r);
      assert.deepEqual(keys(asAdmin._links), ['book', 'cancel', 'collect', 'self']);
      assert.equal(asAdmin._links.collect.href, `${self}/collect`);
      const collected = await step(admin, 'collect', r);
      assert.deepEqual(keys(collected._links), ['book', 'renew', 'return', 'self']);
      assert.equal(collected._links.return.href, `${self}/return`);
      assert.equal(collected._links.renew.href, `${self}/renew`);
      assert.deepEqual(
        keys((await read(alice, r))._links),
        ['book', 'renew', 'self'],
        'the owner cannot return',
      );
      const returned = await step(admin, 'return', r);
      assert.deepEqual(keys(returned._links), ['book', 'self']);
      assert.ok((await book(b.id, alice))._links.reserve, 'after the return alice may reserve again');
    });

    test('the schedule expires overdue READY reservations and promotes the queue with no reader', async () => {
      const scheduled = await startTestService(driver, {
        env: { EXPIRY_SWEEP_INTERVAL: '1s', SESSION_IDLE_TIMEOUT: '10000h' },
      });
      try {
        const client = new ApiClient(scheduled.url);
        const librarian = await createTestSession(scheduled, { role: 'ROLE_ADMIN' });
        const b = await createBook(client, librarian, { copies: 1 });
        const held = await reserve(client, await createTestSession(scheduled), b.id);
        const queued = await reserve(client, await createTestSession(scheduled), b.id);
        scheduled.clock.advance(3 * DAY_MS + 1);
        // Straight from the table: an API read would expire it lazily and prove nothing about the schedule.
        const statuses = () =>
          scheduled.db.query<{ id: string; status: string }>(
            'select id, status from reservations where book_id = $1',
            [b.id],
          );
        const deadline = Date.now() + 20_000;
        let seen = new Map<string, string>();
        while (Date.now() < deadline) {
          seen = new Map((await statuses()).map((row) => [row.id, row.status]));
          if (seen.get(held.id) === 'EXPIRED') break;
          await new Promise((resolve) => setTimeout(resolve, 200));
        }
        assert.equal(seen.get(held.id), 'EXPIRED');
        assert.equal(seen.get(queued.id), 'READY', 'promoted in the same transaction');
      } finally {
        await scheduled.close();
      }
    });

    test('a book with open reservations cannot be deleted; with only closed ones it can', async () => {
      const b = await createBook(api, admin, { title: 'Doomed', copies: 1 });
      const r = await reserve(api, alice, b.id);
      const refused = await api.delete(`/books/${b.id}`, { session: admin });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'BOOK_HAS_OPEN_RESERVATIONS');
      await step(alice, 'cancel', r);
      assert.equal((await api.delete(`/books/${b.id}`, { session: admin })).status, 204);
    });
  });
}
