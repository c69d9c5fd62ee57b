import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

export function reservationLifecycleSuite(driver: Driver, skip: false | string = false) {
  describe(`reservation lifecycle (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let alice: TestSession;
    let bob: TestSession;

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      alice = await createTestSession(service);
      bob = await createTestSession(service);
    });
    after(() => service?.close());

    test('reserve, read, refuse a second open one, cancel, refuse a second cancel, reserve again', async () => {
      const book = await createBook(api, admin);
      const created = await api.post(`/books/${book.id}/reservations`, { session: alice });
      assert.equal(created.status, 201);
      const reservation = created.body;
      assert.equal(reservation.status, 'READY');
      assert.equal(reservation.bookId, book.id);
      assert.equal(reservation.userId, alice.user.id);
      assert.equal(reservation.cancelledAt, null);
      const self = `${service.url}/books/${book.id}/reservations/${reservation.id}`;
      assert.equal(created.headers.get('location'), self);
      assert.deepEqual(reservation._links, {
        self: { href: self },
        book: { href: `${service.url}/books/${book.id}` },
        cancel: { href: self },
      });

      const read = await api.get(`/books/${book.id}/reservations/${reservation.id}`, { session: alice });
      assert.deepEqual(read.body, reservation);

      const second = await api.post(`/books/${book.id}/reservations`, { session: alice });
      assert.equal(second.status, 409);
      assert.equal(second.body.code, 'RESERVATION_ALREADY_OPEN');

      const cancelled = await api.delete(`/books/${book.id}/reservations/${reservation.id}`, {
        session: alice,
      });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'CANCELLED');
      assert.ok(Date.parse(cancelled.body.cancelledAt) >= Date.parse(reservation.reservedAt));

      const again = await api.delete(`/books/${book.id}/reservations/${reservation.id}`, { session: alice });
      assert.equal(again.status, 409);
      assert.equal(again.body.code, 'ILLEGAL_TRANSITION_CANCELLED_TO_CANCELLED');

      const stillReadable = await api.get(`/books/${book.id}/reservations/${reservation.id}`, {
        session: alice,
      });
      assert.equal(stillReadable.body.status, 'CANCELLED');

      const renewed = await reserve(api, alice, book.id);
      assert.notEqual(renewed.id, reservation.id);
    });

    test('another user may reserve the same book; an admin may cancel anyone’s reservation', async () => {
      const book = await createBook(api, admin);
      await reserve(api, alice, book.id);
      const bobs = await reserve(api, bob, book.id);
      const cancelled = await api.delete(`/books/${book.id}/reservations/${bobs.id}`, { session: admin });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.userId, bob.user.id);
    });

    test('404 for a missing book, a missing reservation, or a reservation under another book', async () => {
      const book = await createBook(api, admin);
      const other = await createBook(api, admin, { title: 'Other' });
      const reservation = await reserve(api, alice, book.id);
      const missingBook = await api.post(`/books/${randomUUID()}/reservations`, { session: alice });
      assert.equal(missingBook.status, 404);
      assert.equal(missingBook.body.code, 'BOOK_NOT_FOUND');
      const missing = await api.get(`/books/${book.id}/reservations/${randomUUID()}`, { session: alice });
      assert.equal(missing.status, 404);
      assert.equal(missing.body.code, 'RESERVATION_NOT_FOUND');
      const wrongBook = await api.get(`/books/${other.id}/reservations/${reservation.id}`, {
        session: alice,
      });
      assert.equal(wrongBook.status, 404);
      const wrongBookCancel = await api.delete(`/books/${other.id}/reservations/${reservation.id}`, {
        session: alice,
      });
      assert.equal(wrongBookCancel.status, 404);
      // Existence is not hidden from other users: a missing one is 404, someone else's is 403.
      const othersMissing = await api.get(`/books/${book.id}/reservations/${randomUUID()}`, { session: bob });
      assert.equal(othersMissing.status, 404);
      const othersExisting = await api.get(`/books/${book.id}/reservations/${reservation.id}`, {
        session: bob,
      });
      assert.equal(othersExisting.status, 403);
      assert.equal(othersExisting.body.code, 'NOT_RESERVATION_OWNER');
    });

    test('a book with open reservations cannot be deleted; with only cancelled ones it can', async () => {
      const book = await createBook(api, admin);
      const reservation = await reserve(api, alice, book.id);
      const refused = await api.delete(`/books/${book.id}`, { session: admin });
      assert.equal(refused.status, 409);
      assert.equal(refused.body.code, 'BOOK_HAS_OPEN_RESERVATIONS');
      await api.delete(`/books/${book.id}/reservations/${reservation.id}`, { session: alice });
      const deleted = await api.delete(`/books/${book.id}`, { session: admin });
      assert.equal(deleted.status, 204);
      assert.equal(deleted.body, undefined);
      assert.equal((await api.get(`/books/${book.id}`, { session: admin })).status, 404);
      assert.equal(
        (await api.get(`/books/${book.id}/reservations/${reservation.id}`, { session: alice })).status,
        404,
      );
      assert.equal((await api.delete(`/books/${book.id}`, { session: admin })).status, 404);
    });

    test('GET /reservations: users see their own, admins everyone’s, filtered by userId and status', async () => {
      const carol = await createTestSession(service);
      const dave = await createTestSession(service);
      const book = await createBook(api, admin);
      const carols = await reserve(api, carol, book.id);
      await reserve(api, dave, book.id);
      await api.delete(`/books/${book.id}/reservations/${carols.id}`, { session: carol });
      await reserve(api, carol, book.id);

      const own = await api.get('/reservations', { session: carol });
      assert.equal(own.body.page.totalElements, 2);
      assert.ok(own.body._embedded.reservations.every((r: { userId: string }) => r.userId === carol.user.id));

      // One copy: dave's was promoted when carol cancelled, so carol's second one waits.
      const ownWaiting = await api.get('/reservations?status=WAITING', { session: carol });
      assert.equal(ownWaiting.body.page.totalElements, 1);
      assert.equal(ownWaiting.body._embedded.reservations[0].queuePosition, 1);

      const ownById = await api.get(`/reservations?userId=${carol.user.id}`, { session: carol });
      assert.equal(ownById.body.page.totalElements, 2);
      const someoneElse = await api.get(`/reservations?userId=${dave.user.id}`, { session: carol });
      assert.equal(someoneElse.status, 403);
      assert.equal(someoneElse.body.code, 'USER_FILTER_FORBIDDEN');

      const all = await api.get('/reservations?size=100', { session: admin });
      const userIds = new Set(all.body._embedded.reservations.map((r: { userId: string }) => r.userId));
      assert.ok(userIds.has(carol.user.id) && userIds.has(dave.user.id));
      const davesOnly = await api.get(`/reservations?userId=${dave.user.id}`, { session: admin });
      assert.equal(davesOnly.body.page.totalElements, 1);
      assert.equal(davesOnly.body._embedded.reservations[0].userId, dave.user.id);
      assert.match(davesOnly.body._links.self.href, new RegExp(`userId=${dave.user.id}`));
    });

    test('books: create returns 201 with Location and HAL links; update replaces the fields', async () => {
      const created = await api.post('/books', {
        session: admin,
        body: { title: 'Emma', author: 'Jane Austen', synopsis: 'Matchmaking.' },
      });
      assert.equal(created.status, 201);
      const self = `${service.url}/books/${created.body.id}`;
      assert.equal(created.headers.get('location'), self);
      assert.deepEqual(created.body._links, {
        self: { href: self },
        reservations: { href: `${self}/reservations` },
        reserve: { href: `${self}/reservations` },
      });
      assert.deepEqual([created.body.copies, created.body.available, created.body.waiting], [1, 1, 0]);
      const updated = await api.put(`/books/${created.body.id}`, {
        session: admin,
        body: { title: 'Emma', author: 'Jane Austen', synopsis: 'Matchmaking in Highbury.' },
      });
      assert.equal(updated.status, 200);
      assert.equal(updated.body.synopsis, 'Matchmaking in Highbury.');
      assert.equal(updated.body.createdAt, created.body.createdAt);
      assert.ok(Date.parse(updated.body.updatedAt) >= Date.parse(created.body.updatedAt));
      const missing = await api.put(`/books/${randomUUID()}`, {
        session: admin,
        body: { title: 'Emma', author: 'Jane Austen', synopsis: 'Lost.' },
      });
      assert.equal(missing.status, 404);
    });
  });
}
