import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession } from '../support/test-sessions.js';

const ATTEMPTS = 50;

export function concurrencySuite(driver: Driver, skip: false | string = false) {
  describe(`concurrent reservations (${driver})`, { skip }, () => {
    let service: TestService;

    before(async () => {
      service = await startTestService(driver);
    });
    after(() => service?.close());

    test(`${ATTEMPTS} simultaneous attempts by one user leave exactly one ACTIVE reservation`, async () => {
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
      const rows = await service.db.query<{ active: number }>(
        "select count(*)::int as active from reservations where book_id = $1 and user_id = $2 and status = 'ACTIVE'",
        [book.id, user.user.id],
      );
      assert.equal(rows[0]?.active, 1);
    });

    test('a book being deleted while reservations arrive never keeps an orphan ACTIVE reservation', async () => {
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
