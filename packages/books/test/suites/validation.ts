import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook, SAMPLE_BOOK } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

function assertNoStack(body: unknown) {
  assert.doesNotMatch(JSON.stringify(body), /at .*\.(ts|js):\d+|node_modules|stack/);
}

export function validationSuite(driver: Driver, skip: false | string = false) {
  describe(`request validation and problem details (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
    });
    after(() => service?.close());

    test('malformed JSON is a 400 problem', async () => {
      const response = await api.post('/books', {
        session: admin,
        rawBody: '{"title": "Dune",',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.equal(response.body.type, 'about:blank');
      assert.equal(response.body.instance, '/books');
      assert.equal(response.body.requestId, response.headers.get('x-request-id'));
      assertNoStack(response.body);
    });

    test('unknown fields are rejected, each one listed', async () => {
      const response = await api.post('/books', {
        session: admin,
        body: { ...SAMPLE_BOOK, id: '5a6b7c8d-9e0f-4a1b-8c2d-3e4f5a6b7c8d', isbn: '978-0441013593' },
      });
      assert.equal(response.status, 400);
      assert.equal(response.body.code, 'VALIDATION_FAILED');
      const fields = response.body.errors.map((e: { field: string }) => e.field).sort();
      assert.deepEqual(fields, ['id', 'isbn']);
      assert.equal(response.body.errors[0].message, 'is not a known field');
    });

    test('missing, empty and oversized fields are listed per field', async () => {
      const response = await api.put(`/books/${(await createBook(api, admin)).id}`, {
        session: admin,
        body: { title: '', synopsis: 'x'.repeat(5001) },
      });
      assert.equal(response.status, 400);
      const byField = new Map(
        response.body.errors.map((e: { field: string; message: string }) => [e.field, e.message]),
      );
      assert.equal(byField.get('author'), 'is required');
      assert.ok(byField.has('title'));
      assert.ok(byField.has('synopsis'));
      assert.ok(response.body.errors.every((e: { location: string }) => e.location === 'body'));
      const blank = await api.post('/books', { session: admin, body: { ...SAMPLE_BOOK, title: '   ' } });
      assert.equal(blank.status, 400);
      const wrongType = await api.post('/books', { session: admin, body: { ...SAMPLE_BOOK, title: 42 } });
      assert.equal(wrongType.status, 400);
      const notAnObject = await api.post('/books', { session: admin, body: ['Dune'] });
      assert.equal(notAnObject.status, 400);
    });

    test('bad UUIDs in the path are 400 problems naming the parameter', async () => {
      for (const [method, path, field] of [
        ['GET', '/books/not-a-uuid', 'id'],
        ['DELETE', '/books/1234', 'id'],
        ['POST', '/books/xyz/reservations', 'bookId'],
        ['GET', `/books/${'0'.repeat(8)}-0000-0000-0000-000000000000/reservations/zzz`, 'reservationId'],
      ] as const) {
        const response = await api.request(method, path, { session: admin });
        assert.equal(response.status, 400, `${method} ${path}`);
        assert.deepEqual(
          response.body.errors.map((e: { location: string; field: string }) => [e.location, e.field]),
          [['path', field]],
        );
      }
    });

    test('bodies other than JSON are refused with 415; an empty JSON body with 400', async () => {
      const text = await api.post('/books', {
        session: admin,
        rawBody: 'title=Dune',
        headers: { 'content-type': 'text/plain' },
      });
      assert.equal(text.status, 415);
      const hal = await api.post('/books', {
        session: admin,
        rawBody: JSON.stringify(SAMPLE_BOOK),
        headers: { 'content-type': 'application/hal+json' },
      });
      assert.equal(hal.status, 415);
      const empty = await api.post('/books', {
        session: admin,
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(empty.status, 400);
    });

    test('an unknown route is a 404 problem', async () => {
      const response = await api.get('/nope', { session: admin });
      assert.equal(response.status, 404);
      assert.equal(response.body.code, 'ROUTE_NOT_FOUND');
      assert.equal(response.headers.get('content-type'), 'application/problem+json; charset=utf-8');
    });
  });
}
