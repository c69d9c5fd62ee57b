import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const DAY_MS = 86_400_000;

interface Event {
  id: string;
  at: string;
  kind: string;
  actor: { type: 'user' | 'system'; userId: string | null };
  bookId: string;
  reservationId: string | null;
  holderId: string | null;
  change: Record<string, unknown>;
}

/**
 * The audit log over real HTTP: every state change of the workflow leaves one event naming who made it
 * (a user, or the system for promotion, expiry and overdue), what changed and when (the injected clock);
 * GET /audit pages and filters them for admins; the database refuses to change or remove an event.
 */
export function auditSuite(driver: Driver, skip: false | string = false) {
  describe(`audit log (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let alice: TestSession;
    let bob: TestSession;
    let carol: TestSession;

    before(async () => {
      // The sweep runs every second, so the overdue event comes without a reader.
      service = await startTestService(driver, {
        env: {
          EXPIRY_SWEEP_INTERVAL: '1s',
          PICKUP_DAYS: '3',
          LOAN_DAYS: '21',
          SESSION_IDLE_TIMEOUT: '10000h',
        },
      });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      alice = await createTestSession(service);
      bob = await createTestSession(service);
      carol = await createTestSession(service);
    });
    after(() => service?.close());

    const events = async (query: string): Promise<Event[]> => {
      const response = await api.get(`/audit?size=100&${query}`, { session: admin });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body._embedded.events;
    };
    /** The book's events, oldest first, as [kind, actor, holder] with the session names. */
    const story = async (bookId: string) => {
      const names = new Map<string | null, string>([
        [admin.user.id, 'admin'],
        [alice.user.id, 'alice'],
        [bob.user.id, 'bob'],
        [carol.user.id, 'carol'],
        [null, 'system'],
      ]);
      return (await events(`bookId=${bookId}`))
        .reverse()
        .map((e) => [e.kind, names.get(e.actor.userId), e.holderId === null ? '-' : names.get(e.holderId)]);
    };
    const path = (r: { bookId: string; id: string }) => `/books/${r.bookId}/reservations/${r.id}`;
    const post = async (who: TestSession, r: { bookId: string; id: string }, transition: string) => {
      const response = await api.post(`${path(r)}/${transition}`, { session: who });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };

    test('every transition of a book and its reservations leaves one event: who, what, when', async () => {
      const book = await createBook(api, admin, { title: 'Audited', copies: 1 });
      const a = await reserve(api, alice, book.id);
      const b = await reserve(api, bob, book.id);
      const cancelled = await api.delete(path(a), { session: alice });
      assert.equal(cancelled.status, 200);
      const lent = await post(admin, b, 'collect');
      service.clock.advance(DAY_MS);
      const renewed = await post(bob, b, 'renew');
      await post(admin, b, 'renew');
      const c = await reserve(api, carol, book.id);
      const edited = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { title: 'Audited', author: book.author, synopsis: book.synopsis, copies: 2 },
      });
      assert.equal(edited.status, 200);
      assert.equal((await api.get(path(c), { session: carol })).body.status, 'READY');
      service.clock.advance(3 * DAY_MS + 1);
      assert.equal((await api.get(path(c), { session: carol })).body.status, 'EXPIRED');

      assert.deepEqual(await story(book.id), [
        ['book.created', 'admin', '-'],
        ['reservation.reserved', 'alice', 'alice'],
        ['reservation.promoted', 'system', 'alice'],
        ['reservation.reserved', 'bob', 'bob'],
        ['reservation.cancelled', 'alice', 'alice'],
        ['reservation.promoted', 'system', 'bob'],
        ['reservation.collected', 'admin', 'bob'],
        ['loan.renewed', 'bob', 'bob'],
        ['loan.renewed', 'admin', 'bob'],
        ['reservation.reserved', 'carol', 'carol'],
        ['book.updated', 'admin', '-'],
        ['reservation.promoted', 'system', 'carol'],
        ['reservation.expired', 'system', 'carol'],
      ]);
      const all = await events(`bookId=${book.id}`);
      const byKind = (kind: string) => all.filter((e) => e.kind === kind);
      const collected = byKind('reservation.collected')[0];
      assert.deepEqual(collected?.change, { from: 'READY', to: 'COLLECTED', dueAt: lent.dueAt });
      assert.equal(collected?.at, lent.collectedAt, 'when: the service clock');
      assert.equal(collected?.reservationId, b.id);
      const [second, first] = byKind('loan.renewed');
      assert.deepEqual(first?.change, { fromDueAt: lent.dueAt, toDueAt: renewed.dueAt, renewals: 1 });
      assert.equal(second?.change.renewals, 2);
      assert.deepEqual(byKind('book.updated')[0]?.change, { copies: { from: 1, to: 2 } });
      assert.deepEqual(byKind('reservation.expired')[0]?.change, {
        from: 'READY',
        to: 'EXPIRED',
        pickupDeadline: (await api.get(path(c), { session: carol })).body.pickupDeadline,
      });
      assert.deepEqual(
        all.map((e) => e.actor.type === 'system'),
        all.map((e) => e.actor.userId === null),
      );

      // The loan falls due: the sweep (every second, real time) records it as the system's event.
      service.clock.advance(60 * DAY_MS);
      let overdue: Event[] = [];
      for (let tries = 0; tries < 100 && overdue.length === 0; tries += 1) {
        overdue = await events(`bookId=${book.id}&kind=loan.overdue`);
        if (overdue.length === 0) await sleep(100);
      }
      assert.equal(overdue.length, 1, 'the sweep recorded the overdue loan once');
      assert.deepEqual(
        [overdue[0]?.actor, overdue[0]?.holderId, overdue[0]?.change],
        [
          { type: 'system', userId: null },
          bob.user.id,
          { dueAt: (await api.get(path(b), { session: bob })).body.dueAt },
        ],
      );
      await post(admin, b, 'return');
      const deleted = await api.delete(`/books/${book.id}`, { session: admin });
      assert.equal(deleted.status, 204);
      assert.deepEqual((await story(book.id)).slice(-3), [
        ['loan.overdue', 'system', 'bob'],
        ['reservation.returned', 'admin', 'bob'],
        ['book.deleted', 'admin', '-'],
      ]);
    });

    test('GET /audit pages newest first and filters by book, user and kind; admins only', async () => {
      const book = await createBook(api, admin, { title: 'Filtered', copies: 1 });
      const r = await reserve(api, alice, book.id);
      await post(admin, r, 'collect');
      const other = await createBook(api, admin, { title: 'Other', copies: 1 });
      await reserve(api, bob, other.id);

      const mine = await events(`userId=${alice.user.id}&bookId=${book.id}`);
      assert.deepEqual(
        mine.map((e) => e.kind),
        ['reservation.collected', 'reservation.promoted', 'reservation.reserved'],
        "alice's: what she did and what happened to her reservation, newest first",
      );
      const kinds = await events(`kind=reservation.collected&bookId=${book.id}`);
      assert.deepEqual(
        kinds.map((e) => [e.kind, e.actor.userId]),
        [['reservation.collected', admin.user.id]],
      );
      assert.ok((await events(`userId=${admin.user.id}`)).every((e) => e.actor.userId === admin.user.id));

      const first = await api.get(`/audit?size=2&bookId=${book.id}`, { session: admin });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('content-type'), 'application/hal+json; charset=utf-8');
      assert.deepEqual(first.body.page, { size: 2, totalElements: 4, totalPages: 2, number: 0 });
      const ids = first.body._embedded.events.map((e: Event) => BigInt(e.id));
      assert.ok(ids[0] > ids[1], 'newest first');
      assert.match(first.body._links.next.href, new RegExp(`bookId=${book.id}`));
      const next = await api.get(
        new URL(first.body._links.next.href).pathname + new URL(first.body._links.next.href).search,
        {
          session: admin,
        },
      );
      assert.deepEqual(
        next.body._embedded.events.map((e: Event) => e.kind),
        ['reservation.reserved', 'book.created'],
      );

      const forbidden = await api.get('/audit', { session: alice });
      assert.equal(forbidden.status, 403);
      assert.equal((await api.get('/audit')).status, 401);
      const badKind = await api.get('/audit?kind=book.stolen', { session: admin });
      assert.equal(badKind.status, 400);
    });

    test('the database keeps the log append-only: no update, delete or truncate', async () => {
      await createBook(api, admin, { title: 'Kept' });
      for (const statement of [
        "update audit_events set kind = 'book.deleted'",
        'delete from audit_events',
        'truncate audit_events',
      ]) {
        await assert.rejects(service.db.query(statement), /append-only/, statement);
      }
      assert.ok((await events('kind=book.created')).length > 0, 'the events are still there');
    });
  });
}
