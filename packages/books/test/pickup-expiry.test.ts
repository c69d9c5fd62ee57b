import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from './support/client.js';
import { createBook, reserve } from './support/fixtures-api.js';
import {
  type Driver,
  openTestDatabase,
  postgresSkip,
  startTestService,
  type TestDatabase,
  type TestService,
} from './support/service.js';
import { createTestSession } from './support/test-sessions.js';

const DAY_MS = 86_400_000;

/**
 * Reads skip the expiry probe while no pickup deadline can have passed (src/modules/reservations/
 * pickup-expiry.ts). Two replicas on one database: what one makes READY, the other must still expire
 * on time, although it never saw the write.
 */
function replicasSuite(driver: Driver, skip: false | string) {
  describe(`pickup expiry with two replicas on one database (${driver})`, { skip }, () => {
    let database: TestDatabase;
    let first: TestService;
    let second: TestService;
    const env = { SESSION_IDLE_TIMEOUT: '10000h', PICKUP_DAYS: '3' };

    before(async () => {
      database = await openTestDatabase(driver);
      // The replicas share the database; it is closed once, after both.
      const shared = { db: database.db, dispose: async () => {} };
      first = await startTestService(driver, { database: shared, env });
      second = await startTestService(driver, { database: shared, env });
      // One time for both (each test clock stands still at its start until moved).
      second.clock.nowMs = first.clock.nowMs;
    });
    after(async () => {
      await first?.close();
      await second?.close();
      await database?.dispose();
    });

    test("a reservation made READY by another replica expires at its deadline on this one's reads", async () => {
      const admin = await createTestSession(first, { role: 'ROLE_ADMIN' });
      const reader = await createTestSession(first);
      const onFirst = new ApiClient(first.url);
      const onSecond = new ApiClient(second.url);
      const book = await createBook(onFirst, admin, { copies: 1 });
      // The first replica probes now and finds no READY reservation at all.
      assert.equal((await onFirst.get(`/books/${book.id}`, { session: reader })).body.available, 1);
      const held = await reserve(onSecond, admin, book.id);
      assert.equal(held.status, 'READY');
      assert.equal((await onFirst.get(`/books/${book.id}`, { session: reader })).body.available, 0);

      first.clock.advance(3 * DAY_MS + 1000);
      const read = await onFirst.get(`/books/${book.id}`, { session: reader });
      assert.equal(read.body.available, 1, 'the deadline passed: the copy is free again');
      const reservation = await onFirst.get(`/books/${book.id}/reservations/${held.id}`, { session: admin });
      assert.equal(reservation.body.status, 'EXPIRED');
      assert.equal(reservation.body.expiredAt, held.pickupDeadline);
    });
  });
}

replicasSuite('pglite', false);
replicasSuite('postgres', postgresSkip());
