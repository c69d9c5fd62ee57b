import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const BOOKS = [
  { title: 'Dune', author: 'Frank Herbert', synopsis: 'A desert planet, a spice and a prophecy.' },
  { title: 'Children of Dune', author: 'Frank Herbert', synopsis: 'The sequel, again on the desert planet.' },
  { title: 'Desert Solitaire', author: 'Edward Abbey', synopsis: 'A season as a park ranger in Utah.' },
  { title: 'The Running Man', author: 'Stephen King', synopsis: 'A deadly game show.' },
  { title: 'Emma', author: 'Jane Austen', synopsis: 'Matchmaking in a quiet village.' },
];

/** Full-text search over real HTTP; every test reads the same five books, created once. */
export function searchSuite(driver: Driver, skip: false | string = false) {
  describe(`book search (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let user: TestSession;
    const titles = (response: { body: { _embedded: { books: { title: string }[] } } }) =>
      response.body._embedded.books.map((book) => book.title);

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      user = await createTestSession(service);
      for (const book of BOOKS) {
        const created = await createBook(api, admin, { ...book, copies: book.title === 'Dune' ? 1 : 2 });
        if (book.title === 'Dune') {
          await reserve(api, admin, created.id);
          await reserve(api, user, created.id);
        }
      }
    });
    after(() => service?.close());

    test('q matches title, author and synopsis with stemming; a title match ranks above a synopsis match', async () => {
      const desert = await api.get('/books?q=desert', { session: user });
      assert.equal(desert.status, 200);
      assert.equal(desert.body.page.totalElements, 3);
      assert.equal(titles(desert)[0], 'Desert Solitaire', 'in the title, so first');
      assert.deepEqual(titles(desert).slice(1).sort(), ['Children of Dune', 'Dune']);
      assert.deepEqual(titles(await api.get('/books?q=herbert', { session: user })).sort(), [
        'Children of Dune',
        'Dune',
      ]);
      assert.deepEqual(titles(await api.get('/books?q=runs', { session: user })), ['The Running Man']);
      assert.deepEqual(titles(await api.get('/books?q=desert%20-dune', { session: user })), [
        'Desert Solitaire',
      ]);
      assert.deepEqual(titles(await api.get('/books?q=%22game%20show%22', { session: user })), [
        'The Running Man',
      ]);
      const none = await api.get('/books?q=zeppelin', { session: user });
      assert.deepEqual(none.body._embedded.books, []);
      assert.equal(none.body.page.totalElements, 0);
      const stopWord = await api.get('/books?q=the', { session: user });
      assert.equal(stopWord.status, 200);
      assert.equal(stopWord.body.page.totalElements, 0, 'a word too common to index matches nothing');
    });

    test('search pages: the total counts matches, links keep q, the pages visit every match once in rank order', async () => {
      const all = await api.get('/books?q=desert&size=3', { session: user });
      const seen: string[] = [];
      for (let page = 0; page < 3; page++) {
        const response = await api.get(`/books?q=desert&size=1&page=${page}`, { session: user });
        assert.deepEqual(response.body.page, { size: 1, totalElements: 3, totalPages: 3, number: page });
        assert.match(response.body._links.self.href, /q=desert/);
        assert.match(response.body._links.last.href, /page=2&size=1&sort=title%2Casc&q=desert/);
        seen.push(...titles(response));
      }
      assert.deepEqual(seen, titles(all));
      const past = await api.get('/books?q=desert&size=1&page=5', { session: user });
      assert.deepEqual(past.body._embedded.books, []);
      assert.equal(past.body.page.totalElements, 3);
    });

    test('sort orders books of equal relevance', async () => {
      // Both Dune books match `herbert` once, in the author: equal relevance, so the sort decides.
      const ascending = await api.get('/books?q=herbert&sort=title,asc', { session: user });
      const descending = await api.get('/books?q=herbert&sort=title,desc', { session: user });
      assert.deepEqual(titles(ascending), ['Children of Dune', 'Dune']);
      assert.deepEqual(titles(descending), ['Dune', 'Children of Dune']);
    });

    test('each book carries available and waiting', async () => {
      const dune = (await api.get('/books?q=dune', { session: user })).body._embedded.books.find(
        (book: { title: string }) => book.title === 'Dune',
      );
      assert.deepEqual([dune.copies, dune.available, dune.waiting], [1, 0, 1]);
      assert.equal(dune._links.reserve, undefined, 'this user is in its queue');
      const emma = (await api.get('/books?q=emma', { session: user })).body._embedded.books[0];
      assert.deepEqual([emma.copies, emma.available, emma.waiting], [2, 2, 0]);
    });

    test('an empty, blank or over-long q is 400 naming q', async () => {
      for (const q of ['', '%20%20', 'x'.repeat(201)]) {
        const response = await api.get(`/books?q=${q}`, { session: user });
        assert.equal(response.status, 400, JSON.stringify(q));
        assert.ok(response.body.errors.some((e: { field: string }) => e.field === 'q'));
      }
    });
  });
}
