import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient, type ApiResponse } from '../support/client.js';
import { createBook, reserve, SAMPLE_BOOK } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const STRONG_TAG = /^"[0-9]+-[A-Za-z0-9_-]{16}"$/;

function etagOf(response: ApiResponse): string {
  const tag = response.headers.get('etag');
  assert.ok(tag !== null, `no ETag on ${response.status}: ${JSON.stringify(response.body)}`);
  assert.match(tag, STRONG_TAG);
  return tag;
}

function assertPreconditionFailed(response: ApiResponse): void {
  assert.equal(response.status, 412, JSON.stringify(response.body));
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/);
  assert.equal(response.body.code, 'PRECONDITION_FAILED');
  assert.equal(response.body.status, 412);
}

/**
 * ETag, If-None-Match and If-Match over real HTTP (RFC 9110, as Spring Data REST answers them): 304
 * for a current tag, 412 for a stale one on writes, and a conditional write that two requests carrying
 * the same tag cannot both pass.
 */
export function conditionalRequestsSuite(driver: Driver, skip: false | string = false) {
  describe(`conditional requests: ETag, If-None-Match, If-Match (${driver})`, { skip }, () => {
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

    const ifMatch = (tag: string) => ({ 'if-match': tag });
    const ifNoneMatch = (tag: string) => ({ 'if-none-match': tag });

    test('GET of a book: a current If-None-Match is 304 with the ETag and no body; a stale one is 200', async () => {
      const created = await api.post('/books', { session: admin, body: SAMPLE_BOOK });
      const book = created.body;
      const read = await api.get(`/books/${book.id}`, { session: admin });
      const tag = etagOf(read);
      assert.equal(etagOf(created), tag, 'the 201 carries the tag a GET then gives');

      for (const header of [tag, `W/${tag}`, `"x-0000000000000000", ${tag}`, '*']) {
        const notModified = await api.get(`/books/${book.id}`, {
          session: admin,
          headers: ifNoneMatch(header),
        });
        assert.equal(notModified.status, 304, header);
        assert.equal(notModified.body, undefined);
        assert.equal(notModified.headers.get('etag'), tag);
        assert.equal(notModified.headers.get('x-content-type-options'), 'nosniff');
        assert.match(notModified.headers.get('cache-control') ?? '', /no-store/);
      }
      const head = await api.request('HEAD', `/books/${book.id}`, { session: admin });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get('etag'), tag);
      const headNotModified = await api.request('HEAD', `/books/${book.id}`, {
        session: admin,
        headers: ifNoneMatch(tag),
      });
      assert.equal(headNotModified.status, 304);
      const stale = await api.get(`/books/${book.id}`, {
        session: admin,
        headers: ifNoneMatch('"0-AAAAAAAAAAAAAAAA"'),
      });
      assert.equal(stale.status, 200);
      assert.deepEqual(stale.body, read.body);

      const missing = await api.get('/books/00000000-0000-4000-8000-000000000000', {
        session: admin,
        headers: ifNoneMatch('*'),
      });
      assert.equal(missing.status, 404, 'preconditions are ignored when the answer would be 404');
    });

    test('the book ETag follows its representation: writes, reservations (available, waiting) and the caller', async () => {
      const book = await createBook(api, admin, { copies: 1 });
      const initial = etagOf(await api.get(`/books/${book.id}`, { session: admin }));

      const updated = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { ...SAMPLE_BOOK, title: 'Dune Messiah' },
      });
      const afterPut = etagOf(updated);
      assert.notEqual(afterPut, initial);
      assert.equal(etagOf(await api.get(`/books/${book.id}`, { session: admin })), afterPut);

      // Alice's reservation changes `available`: the admin's old tag no longer gives 304.
      await reserve(api, alice, book.id);
      const afterReserve = await api.get(`/books/${book.id}`, {
        session: admin,
        headers: ifNoneMatch(afterPut),
      });
      assert.equal(afterReserve.status, 200);
      assert.equal(afterReserve.body.available, 0);
      assert.notEqual(etagOf(afterReserve), afterPut);

      // Same book, same version, different callers: Alice's copy has no `reserve` link, Bob's has.
      const forAlice = await api.get(`/books/${book.id}`, { session: alice });
      const forBob = await api.get(`/books/${book.id}`, { session: bob });
      assert.equal(forAlice.body._links.reserve, undefined);
      assert.ok(forBob.body._links.reserve);
      assert.notEqual(etagOf(forAlice), etagOf(forBob));
      const bobsIfNoneMatch = await api.get(`/books/${book.id}`, {
        session: bob,
        headers: ifNoneMatch(etagOf(forAlice)),
      });
      assert.equal(bobsIfNoneMatch.status, 200, "another caller's tag is not the caller's representation");

      // Bob joins the queue: `waiting` moves, and with it the tag.
      await reserve(api, bob, book.id);
      const queued = await api.get(`/books/${book.id}`, { session: alice });
      assert.equal(queued.body.waiting, 1);
      assert.notEqual(etagOf(queued), etagOf(forAlice));
    });

    test('PUT of a book: stale If-Match is 412 and changes nothing; the current one succeeds; If-Match is optional', async () => {
      const book = await createBook(api, admin);
      const tag = etagOf(await api.get(`/books/${book.id}`, { session: admin }));
      const first = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { ...SAMPLE_BOOK, title: 'First edit' },
        headers: ifMatch(tag),
      });
      assert.equal(first.status, 200);
      const newTag = etagOf(first);
      assert.notEqual(newTag, tag);

      const stale = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { ...SAMPLE_BOOK, title: 'Lost edit' },
        headers: ifMatch(tag),
      });
      assertPreconditionFailed(stale);
      const current = await api.get(`/books/${book.id}`, { session: admin });
      assert.equal(current.body.title, 'First edit');
      assert.equal(etagOf(current), newTag, 'a refused write leaves the version alone');

      for (const header of [`W/${newTag}`, 'garbage', '', `"${'x'.repeat(5000)}"`]) {
        const refused = await api.put(`/books/${book.id}`, {
          session: admin,
          body: SAMPLE_BOOK,
          headers: ifMatch(header),
        });
        assertPreconditionFailed(refused);
        assert.ok(refused.body.detail.includes(newTag), 'the detail names the current tag');
        assert.ok(refused.body.detail.length < 300, "the caller's value is not echoed");
      }
      const listed = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { ...SAMPLE_BOOK, title: 'Listed' },
        headers: ifMatch(`"0-AAAAAAAAAAAAAAAA", ${newTag}`),
      });
      assert.equal(listed.status, 200, 'one tag of the list matching is enough');
      const star = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { ...SAMPLE_BOOK, title: 'Any' },
        headers: ifMatch('*'),
      });
      assert.equal(star.status, 200, '* matches any current representation');
      const unconditional = await api.put(`/books/${book.id}`, { session: admin, body: SAMPLE_BOOK });
      assert.equal(unconditional.status, 200);
      const noneMatchOnWrite = await api.put(`/books/${book.id}`, {
        session: admin,
        body: SAMPLE_BOOK,
        headers: ifNoneMatch(etagOf(unconditional)),
      });
      assertPreconditionFailed(noneMatchOnWrite);

      const missing = await api.put('/books/00000000-0000-4000-8000-000000000000', {
        session: admin,
        body: SAMPLE_BOOK,
        headers: ifMatch('*'),
      });
      assert.equal(missing.status, 404);
    });

    test('a stale If-Match comes before a conflict: 412, not 409 COPIES_BELOW_HELD', async () => {
      const book = await createBook(api, admin, { copies: 1 });
      const tag = etagOf(await api.get(`/books/${book.id}`, { session: admin }));
      await reserve(api, alice, book.id);
      const response = await api.put(`/books/${book.id}`, {
        session: admin,
        body: { ...SAMPLE_BOOK, copies: 0 },
        headers: ifMatch(tag),
      });
      assertPreconditionFailed(response);
    });

    test('DELETE of a book: stale If-Match is 412 and the book stays; the current one deletes it', async () => {
      const book = await createBook(api, admin);
      const tag = etagOf(await api.get(`/books/${book.id}`, { session: admin }));
      await api.put(`/books/${book.id}`, { session: admin, body: { ...SAMPLE_BOOK, title: 'Changed' } });

      assertPreconditionFailed(
        await api.delete(`/books/${book.id}`, { session: admin, headers: ifMatch(tag) }),
      );
      const still = await api.get(`/books/${book.id}`, { session: admin });
      assert.equal(still.status, 200);

      const deleted = await api.delete(`/books/${book.id}`, {
        session: admin,
        headers: ifMatch(etagOf(still)),
      });
      assert.equal(deleted.status, 204);
      assert.equal((await api.get(`/books/${book.id}`, { session: admin })).status, 404);
    });

    test('concurrent PUTs carrying the same If-Match: exactly one succeeds, the others get 412', async () => {
      const writers = 8;
      for (let round = 0; round < 3; round++) {
        const book = await createBook(api, admin);
        const tag = etagOf(await api.get(`/books/${book.id}`, { session: admin }));
        const responses = await Promise.all(
          Array.from({ length: writers }, (_, i) =>
            api.put(`/books/${book.id}`, {
              session: admin,
              body: { ...SAMPLE_BOOK, title: `Writer ${i}` },
              headers: ifMatch(tag),
            }),
          ),
        );
        const statuses = responses.map((response) => response.status);
        assert.equal(statuses.filter((status) => status === 200).length, 1, statuses.join(','));
        assert.equal(statuses.filter((status) => status === 412).length, writers - 1, statuses.join(','));
        const winner = responses.find((response) => response.status === 200);
        const current = await api.get(`/books/${book.id}`, { session: admin });
        assert.equal(
          current.body.title,
          winner?.body.title,
          'the stored book is the one the winner was told',
        );
        assert.equal(etagOf(current), winner && etagOf(winner));
      }
    });

    test('a concurrent PUT and DELETE carrying the same If-Match: exactly one succeeds', async () => {
      const book = await createBook(api, admin);
      const tag = etagOf(await api.get(`/books/${book.id}`, { session: admin }));
      const [put, del] = await Promise.all([
        api.put(`/books/${book.id}`, { session: admin, body: SAMPLE_BOOK, headers: ifMatch(tag) }),
        api.delete(`/books/${book.id}`, { session: admin, headers: ifMatch(tag) }),
      ]);
      const statuses = [put?.status, del?.status];
      assert.equal(
        statuses.filter((status) => status === 200 || status === 204).length,
        1,
        statuses.join(','),
      );
      // The loser either saw the new version (412) or, after the delete, no book at all (404).
      assert.ok(
        statuses.every((status) => [200, 204, 404, 412].includes(status ?? 0)),
        statuses.join(','),
      );
    });

    test('reservations: ETag, 304, and a new tag for a state change, a queue move and another caller', async () => {
      const book = await createBook(api, admin, { copies: 1 });
      const held = await reserve(api, alice, book.id);
      const first = await reserve(api, bob, book.id);
      const carol = await createTestSession(service);
      const second = await reserve(api, carol, book.id);
      assert.equal(second.queuePosition, 2);
      const path = (id: string) => `/books/${book.id}/reservations/${id}`;

      const carols = await api.get(path(second.id), { session: carol });
      const carolsTag = etagOf(carols);
      const notModified = await api.get(path(second.id), { session: carol, headers: ifNoneMatch(carolsTag) });
      assert.equal(notModified.status, 304);
      assert.equal(notModified.body, undefined);
      assert.equal(notModified.headers.get('etag'), carolsTag);

      // Alice's READY reservation as the admin sees it has a `collect` link hers lacks: same fields, other tag.
      const alicesView = await api.get(path(held.id), { session: alice });
      const adminsView = await api.get(path(held.id), { session: admin });
      assert.deepEqual({ ...adminsView.body, _links: undefined }, { ...alicesView.body, _links: undefined });
      assert.ok(adminsView.body._links.collect && !alicesView.body._links.collect);
      assert.notEqual(etagOf(adminsView), etagOf(alicesView));

      // Bob leaves the queue: Carol's row is untouched, but her queuePosition is now 1, and so is her tag new.
      await api.delete(path(first.id), { session: bob });
      const moved = await api.get(path(second.id), { session: carol, headers: ifNoneMatch(carolsTag) });
      assert.equal(moved.status, 200);
      assert.equal(moved.body.queuePosition, 1);
      assert.notEqual(etagOf(moved), carolsTag);

      // Collecting Alice's copy changes her reservation's state, its links and its tag.
      const alicesTag = etagOf(await api.get(path(held.id), { session: alice }));
      const collected = await api.post(`${path(held.id)}/collect`, { session: admin });
      assert.equal(collected.status, 200);
      etagOf(collected);
      const afterCollect = await api.get(path(held.id), { session: alice, headers: ifNoneMatch(alicesTag) });
      assert.equal(afterCollect.status, 200);
      assert.equal(afterCollect.body.status, 'COLLECTED');
    });

    test('reservation writes honour If-Match: a stale tag is 412 and changes nothing', async () => {
      const book = await createBook(api, admin, { copies: 1 });
      const reservation = await reserve(api, alice, book.id);
      const path = `/books/${book.id}/reservations/${reservation.id}`;
      const alicesTag = etagOf(await api.get(path, { session: alice }));
      const adminsTag = etagOf(await api.get(path, { session: admin }));

      assertPreconditionFailed(
        await api.post(`${path}/collect`, { session: admin, headers: ifMatch(alicesTag) }),
      );
      assert.equal((await api.get(path, { session: alice })).body.status, 'READY');
      const collected = await api.post(`${path}/collect`, { session: admin, headers: ifMatch(adminsTag) });
      assert.equal(collected.status, 200);

      assertPreconditionFailed(
        await api.post(`${path}/return`, { session: admin, headers: ifMatch(adminsTag) }),
      );
      const returned = await api.post(`${path}/return`, {
        session: admin,
        headers: ifMatch(etagOf(collected)),
      });
      assert.equal(returned.status, 200);
      assert.equal(returned.body.status, 'RETURNED');

      const again = await reserve(api, alice, book.id);
      const againPath = `/books/${book.id}/reservations/${again.id}`;
      assertPreconditionFailed(await api.delete(againPath, { session: alice, headers: ifMatch(alicesTag) }));
      const cancelled = await api.delete(againPath, {
        session: alice,
        headers: ifMatch(etagOf(await api.get(againPath, { session: alice }))),
      });
      assert.equal(cancelled.status, 200);
      assert.equal(cancelled.body.status, 'CANCELLED');
    });

    test('If-Match on a GET is evaluated too (412 when stale); pages of lists carry no ETag', async () => {
      const book = await createBook(api, admin);
      const tag = etagOf(await api.get(`/books/${book.id}`, { session: admin }));
      assert.equal(
        (await api.get(`/books/${book.id}`, { session: admin, headers: ifMatch(tag) })).status,
        200,
      );
      assertPreconditionFailed(
        await api.get(`/books/${book.id}`, { session: admin, headers: ifMatch('"0-AAAAAAAAAAAAAAAA"') }),
      );
      const books = await api.get('/books', { session: admin });
      assert.equal(books.status, 200);
      assert.equal(books.headers.get('etag'), null);
      const reservations = await api.get('/reservations', { session: admin, headers: ifNoneMatch('*') });
      assert.equal(reservations.status, 200, 'If-None-Match does not apply to pages');
      assert.equal(reservations.headers.get('etag'), null);
    });
  });
}
