import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';
const XSS_TITLE = '<script>alert(1)</script>';
const XSS_AUTHOR = '"><img src=x onerror=alert(2)>';
const ESCAPED_TITLE = '&#60;script&#62;alert(1)&#60;/script&#62;';

interface Page {
  status: number;
  location: string | null;
  contentType: string;
  /** The Content-Security-Policy header ('' when there is none). */
  csp: string;
  html: string;
}

/** A browser without a browser: pages with a browser's Accept, forms posted with the page's own token. */
class PageClient {
  constructor(
    private readonly base: string,
    readonly session: TestSession | undefined,
  ) {}

  private async send(path: string, init: RequestInit): Promise<Page> {
    const headers = new Headers(init.headers);
    if (!headers.has('accept')) headers.set('accept', BROWSER_ACCEPT);
    if (this.session !== undefined) headers.set('cookie', this.session.cookie);
    const response = await fetch(`${this.base}${path}`, { ...init, headers, redirect: 'manual' });
    return {
      status: response.status,
      location: response.headers.get('location'),
      contentType: response.headers.get('content-type') ?? '',
      csp: response.headers.get('content-security-policy') ?? '',
      html: await response.text(),
    };
  }

  get(path: string, accept?: string): Promise<Page> {
    return this.send(path, accept === undefined ? {} : { headers: { accept } });
  }

  /** Posts the form whose action is `action` on `page` (its hidden fields and `fields`). */
  post(page: Page, action: string, fields: Record<string, string> = {}): Promise<Page> {
    const forms = [...page.html.matchAll(/<form method="post" action="([^"]+)"[^>]*>([\s\S]*?)<\/form>/g)];
    const form = forms.find((match) => match[1] === action);
    assert.ok(form, `the page has a form posting to ${action}`);
    // What a browser would send: every named input with its value, and every textarea's text.
    const body = new URLSearchParams();
    const markup = form[2] ?? '';
    for (const [input = ''] of markup.matchAll(/<input [^>]*>/g)) {
      const name = /name="([^"]+)"/.exec(input)?.[1];
      if (name !== undefined) body.set(name, unescapeHtml(/value="([^"]*)"/.exec(input)?.[1] ?? ''));
    }
    for (const [, name = '', value = ''] of markup.matchAll(
      /<textarea[^>]*name="([^"]+)"[^>]*>([^<]*)<\/textarea>/g,
    )) {
      body.set(name, unescapeHtml(value));
    }
    for (const [name, value] of Object.entries(fields)) body.set(name, value);
    return this.postRaw(action, body.toString());
  }

  postRaw(action: string, body: string): Promise<Page> {
    return this.send(action, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body,
    });
  }
}

const unescapeHtml = (value: string) =>
  value.replace(/&#(\d+);/g, (_match, code: string) => String.fromCharCode(Number(code)));
const flashOf = (page: Page) =>
  /<p class="flash flash-(\w+)" role="\w+">([^<]*)<\/p>/.exec(page.html)?.slice(1);
const text = (html: string) => html.replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');

export function webPagesSuite(driver: Driver, skip: false | string = false) {
  describe(`web front pages (${driver})`, { skip }, () => {
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;
    let alice: PageClient;
    let bob: PageClient;
    let adminPages: PageClient;

    before(async () => {
      service = await startTestService(driver);
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN', name: 'Ada Admin' });
      adminPages = new PageClient(service.url, admin);
      alice = new PageClient(service.url, await createTestSession(service, { name: 'Alice Reader' }));
      bob = new PageClient(service.url, await createTestSession(service, { name: 'Bob <b>Reader</b>' }));
    });
    after(() => service?.close());

    test('anonymous browsers are sent to sign in and come back; API clients get 401 problem details', async () => {
      const book = await createBook(api, admin);
      const anonymous = new PageClient(service.url, undefined);
      for (const path of [
        '/',
        '/?q=dune',
        `/web/books/${book.id}`,
        '/web/reservations',
        '/web/admin/books/new',
      ]) {
        const browser = await anonymous.get(path);
        assert.equal(browser.status, 302, path);
        assert.equal(browser.location, '/login', path);
        for (const accept of ['application/json', '*/*']) {
          const script = await anonymous.get(path, accept);
          assert.equal(script.status, 401, `${path} ${accept}`);
          assert.match(script.contentType, /^application\/problem\+json/);
          assert.equal((JSON.parse(script.html) as { code: string }).code, 'UNAUTHENTICATED');
        }
      }
      const response = await fetch(`${service.url}/web/reservations`, {
        headers: { accept: BROWSER_ACCEPT },
        redirect: 'manual',
      });
      const saved = response.headers
        .getSetCookie()
        .find((line) => line.startsWith('REDIRECT_URI='))
        ?.split(';')[0]
        ?.slice('REDIRECT_URI='.length);
      assert.equal(Buffer.from(saved ?? '', 'base64url').toString(), '/web/reservations');
    });

    test('an unknown page address is a page for browsers and problem details for scripts', async () => {
      const page = await alice.get('/web/no-such-page?x=1');
      assert.equal(page.status, 404);
      assert.match(page.contentType, /^text\/html/);
      assert.match(page.csp, /script-src 'none'/);
      assert.match(text(page.html), /Not found There is no such page/);
      assert.match(page.html, /Sign out/);
      const script = await alice.get('/web/no-such-page', 'application/json');
      assert.equal(script.status, 404);
      assert.match(script.contentType, /^application\/problem\+json/);
      assert.equal((JSON.parse(script.html) as { code: string }).code, 'PAGE_NOT_FOUND');
      const api = await alice.get('/no-such-api-path');
      assert.equal(api.status, 404);
      assert.match(api.contentType, /^application\/problem\+json/);
    });

    test('the home page lists books with availability, searches with q, sorts and pages through links', async () => {
      const suffix = `${Date.now()}`;
      const scarce = await createBook(api, admin, { title: `Kestrel ${suffix}`, copies: 1 });
      await createBook(api, admin, { title: `Kestrel plenty ${suffix}`, copies: 3 });
      await reserve(api, await createTestSession(service), scarce.id);
      await reserve(api, await createTestSession(service), scarce.id);
      const found = await alice.get(`/?q=${encodeURIComponent(`kestrel ${suffix}`)}`);
      assert.equal(found.status, 200);
      assert.match(found.contentType, /^text\/html/);
      assert.match(found.html, /<label for="q">Search<\/label>/);
      assert.match(text(found.html), /2 books match/);
      assert.match(
        text(found.html),
        new RegExp(`Kestrel ${suffix} by Frank Herbert 0 of 1 available, 1 waiting`),
      );
      assert.match(text(found.html), /3 of 3 available/);
      assert.match(found.html, /<header class="site">/);
      assert.match(text(found.html), /Signed in as Alice Reader/);
      assert.match(found.html, /<a href="\/web\/reservations">My reservations<\/a>/);
      assert.match(found.html, /<a href="\/swagger-ui.html">API docs<\/a>/);
      assert.match(found.html, /<button type="submit" class="link">Sign out<\/button>/);
      assert.doesNotMatch(found.html, /All reservations/, 'no admin links for a user');

      // An empty search box is no search; an invalid one is a page saying why, not JSON.
      const all = await alice.get('/?q=');
      assert.equal(all.status, 200);
      const invalid = await alice.get('/?page=-1');
      assert.equal(invalid.status, 400);
      assert.match(invalid.contentType, /^text\/html/);
      assert.match(text(invalid.html), /page must be at least 0/);

      for (let i = 0; i < 3; i++) await createBook(api, admin, { title: `Kestrel paged ${suffix} ${i}` });
      const first = await alice.get(`/?q=${encodeURIComponent(`kestrel ${suffix}`)}&size=2&sort=title,desc`);
      assert.match(text(first.html), /Page 1 of 3/);
      const next = /<a href="([^"]+)" rel="next">Next<\/a>/.exec(first.html)?.[1]?.replaceAll('&#38;', '&');
      assert.ok(next, 'a link to the next page');
      assert.match(next, /size=2/);
      assert.match(next, /sort=title%2Cdesc/);
      const second = await alice.get(next);
      assert.match(text(second.html), /Page 2 of 3/);
      assert.match(second.html, /rel="prev">Previous<\/a>/);
      const byAuthor = /<a href="([^"]+)">Author<\/a>/.exec(first.html)?.[1]?.replaceAll('&#38;', '&');
      assert.match(byAuthor ?? '', /sort=author%2Casc/);
    });

    test('reserving posts the form with its token, redirects back, and shows a message once', async () => {
      const book = await createBook(api, admin, { title: 'Reservable', copies: 1 });
      const page = await alice.get(`/web/books/${book.id}`);
      assert.match(text(page.html), /1 of 1 available/);
      assert.match(text(page.html), /You have not reserved this book/);
      const reserved = await alice.post(page, `/web/books/${book.id}/reserve`);
      assert.equal(reserved.status, 303);
      assert.equal(reserved.location, `/web/books/${book.id}`);
      const after = await alice.get(`/web/books/${book.id}`);
      assert.deepEqual(flashOf(after), [
        'success',
        'Reserved: a copy is held for you. See the pickup deadline below.',
      ]);
      assert.match(text(after.html), /Ready for pickup : pick it up by \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
      assert.match(after.html, /<button type="submit" class="secondary">Cancel reservation<\/button>/);
      assert.doesNotMatch(after.html, />Reserve</);
      assert.equal(flashOf(await alice.get(`/web/books/${book.id}`)), undefined, 'shown once');

      // The same form again (a second tab): 409 as a readable message on the page, never JSON.
      const again = await alice.post(page, `/web/books/${book.id}/reserve`);
      assert.equal(again.status, 303);
      const refused = await alice.get(again.location ?? '');
      assert.equal(flashOf(refused)?.[0], 'error');
      assert.match(flashOf(refused)?.[1] ?? '', /^You already hold a reservation of this book/);

      // Without the token: refused, and said so on the page.
      const forged = await alice.postRaw(`/web/books/${book.id}/reserve`, `back=/web/books/${book.id}`);
      assert.equal(forged.status, 303);
      assert.deepEqual(flashOf(await alice.get(forged.location ?? '')), [
        'error',
        'The form had expired. Please try again.',
      ]);

      // Bob finds no free copy: he joins the waiting list, and sees his place.
      const bobsPage = await bob.get(`/web/books/${book.id}`);
      assert.match(text(bobsPage.html), /0 of 1 available/);
      assert.match(bobsPage.html, />Join the waiting list</);
      await bob.post(bobsPage, `/web/books/${book.id}/reserve`);
      const waiting = await bob.get(`/web/books/${book.id}`);
      assert.match(flashOf(waiting)?.[1] ?? '', /you are number 1 in the queue/);
      assert.match(text(waiting.html), /Waiting : number 1 in the queue/);

      // Alice cancels from "My reservations"; Bob's reservation is READY.
      const mine = await alice.get('/web/reservations');
      assert.match(text(mine.html), /Reservable by Frank Herbert Ready for pickup/);
      const cancelAction = /action="(\/web\/books\/[^"]+\/cancel)"/.exec(mine.html)?.[1] ?? '';
      const cancelled = await alice.post(mine, cancelAction);
      assert.equal(cancelled.location, '/web/reservations');
      const afterCancel = await alice.get('/web/reservations');
      assert.deepEqual(flashOf(afterCancel), ['success', 'The reservation is cancelled.']);
      assert.match(text(afterCancel.html), /Reservable by Frank Herbert Cancelled/);
      assert.match(text((await bob.get(`/web/books/${book.id}`)).html), /Ready for pickup : pick it up by/);
    });

    test('what only admins may do is refused to users as a page, and to scripts as problem details', async () => {
      const book = await createBook(api, admin, { title: 'Admin only' });
      const forbidden = await alice.get('/web/admin/reservations');
      assert.equal(forbidden.status, 403);
      assert.match(forbidden.contentType, /^text\/html/);
      assert.match(text(forbidden.html), /Only an admin may do that/);
      assert.equal((await alice.get(`/web/admin/books/${book.id}/edit`)).status, 403);
      const script = await alice.get('/web/admin/reservations', 'application/json');
      assert.equal(script.status, 403);
      assert.equal((JSON.parse(script.html) as { code: string }).code, 'ROLE_REQUIRED');

      // A user's own READY reservation: collecting it is an admin's job (the API's collectReservation rule).
      const page = await alice.get(`/web/books/${book.id}`);
      await alice.post(page, `/web/books/${book.id}/reserve`);
      const reserved = await alice.get(`/web/books/${book.id}`);
      assert.doesNotMatch(reserved.html, /Mark collected/);
      const reservationPath = /action="(\/web\/books\/[^"]+)\/cancel"/.exec(reserved.html)?.[1] ?? '';
      const token = /name="_csrf" value="([^"]+)"/.exec(reserved.html)?.[1] ?? '';
      const attempt = await alice.postRaw(
        `${reservationPath}/collect`,
        `_csrf=${token}&back=${encodeURIComponent(`/web/books/${book.id}`)}`,
      );
      assert.equal(attempt.status, 303);
      assert.deepEqual(flashOf(await alice.get(attempt.location ?? '')), [
        'error',
        'Only an admin may do that.',
      ]);
    });

    test('admins create, edit and delete books through forms checked by the contract rules', async () => {
      const form = await adminPages.get('/web/admin/books/new');
      assert.equal(form.status, 200);
      assert.match(form.html, /<label for="title">Title<\/label>/);
      const invalid = await adminPages.post(form, '/web/admin/books', {
        title: '   ',
        author: 'Ursula K. Le Guin',
        synopsis: 'Winter.',
        copies: '-1',
      });
      assert.equal(invalid.status, 400);
      assert.match(invalid.contentType, /^text\/html/);
      assert.match(text(invalid.html), /The book was not saved: 2 fields need fixing/);
      assert.match(invalid.html, /id="title-error">Title needs at least one visible character/);
      assert.match(invalid.html, /id="copies-error">Copies must be at least 0/);
      assert.match(invalid.html, /value="Ursula K. Le Guin"/, 'what was typed is kept');

      const created = await adminPages.post(form, '/web/admin/books', {
        title: 'The Left Hand of Darkness',
        author: 'Ursula K. Le Guin',
        synopsis: 'Winter.',
        copies: '2',
      });
      assert.equal(created.status, 303);
      const bookPath = created.location ?? '';
      const id = bookPath.split('/').pop() ?? '';
      const shown = await adminPages.get(bookPath);
      assert.deepEqual(flashOf(shown), ['success', 'The book was created.']);
      assert.match(text(shown.html), /2 of 2 available/);
      const fromApi = await api.get(`/books/${id}`, { session: admin });
      assert.equal(fromApi.body.copies, 2);

      // One copy lent: fewer copies than that is refused with the reason, on the form.
      const reservation = await reserve(api, bob.session as TestSession, id);
      await api.post(`/books/${id}/reservations/${reservation.id}/collect`, { session: admin });
      const edit = await adminPages.get(`/web/admin/books/${id}/edit`);
      const below = await adminPages.post(edit, `/web/admin/books/${id}`, { copies: '0' });
      assert.equal(below.status, 409);
      assert.match(text(below.html), /copies cannot go below that/);
      const saved = await adminPages.post(edit, `/web/admin/books/${id}`, {
        copies: '5',
        title: 'Left Hand',
      });
      assert.equal(saved.status, 303);
      assert.match(
        text((await adminPages.get(bookPath)).html),
        /Left Hand by Ursula K. Le Guin 4 of 5 available/,
      );

      // Open reservations keep the book; returned, it can go.
      const withOpen = await adminPages.post(await adminPages.get(bookPath), `/web/admin/books/${id}/delete`);
      assert.match(
        flashOf(await adminPages.get(withOpen.location ?? ''))?.[1] ?? '',
        /still has waiting, ready or collected/,
      );
      const list = await adminPages.get(`/web/admin/reservations?bookId=${id}&status=COLLECTED`);
      assert.match(list.html, /Reserved by <strong>Bob &#60;b&#62;Reader&#60;\/b&#62; \(/);
      const returned = await adminPages.post(list, `/web/books/${id}/reservations/${reservation.id}/return`);
      assert.equal(returned.status, 303);
      assert.deepEqual(flashOf(await adminPages.get(returned.location ?? '')), [
        'success',
        'Marked returned.',
      ]);
      const deleted = await adminPages.post(await adminPages.get(bookPath), `/web/admin/books/${id}/delete`);
      assert.equal(deleted.location, '/');
      assert.deepEqual(flashOf(await adminPages.get('/')), ['success', 'Deleted “Left Hand”.']);
      assert.equal((await api.get(`/books/${id}`, { session: admin })).status, 404);
    });

    test('loans on the pages: the due date, Renew, the Overdue mark, the overdue list and the audit log', async () => {
      // A service of its own: its clock moves on by weeks, which would end the suite's sessions.
      const own = await startTestService(driver, { env: { SESSION_IDLE_TIMEOUT: '10000h' } });
      try {
        const api = new ApiClient(own.url);
        const admin = await createTestSession(own, { role: 'ROLE_ADMIN', name: 'Ada Admin' });
        const adminPages = new PageClient(own.url, admin);
        const alice = new PageClient(own.url, await createTestSession(own, { name: 'Alice Reader' }));
        const bob = new PageClient(own.url, await createTestSession(own, { name: 'Bob <b>Reader</b>' }));
        const book = await createBook(api, admin, { title: 'Lent on the web', copies: 1 });
        const held = await reserve(api, alice.session as TestSession, book.id);
        const lent = await api.post(`/books/${book.id}/reservations/${held.id}/collect`, { session: admin });
        const due = `${lent.body.dueAt.slice(0, 16).replace('T', ' ')} UTC`;
        const mine = await alice.get('/web/reservations');
        assert.match(text(mine.html), new RegExp(`Collected : due back ${due} \\(2 renewals left\\)`));
        const renewAction = `/web/books/${book.id}/reservations/${held.id}/renew`;
        const renewed = await alice.post(mine, renewAction);
        assert.equal(renewed.status, 303);
        const after = await alice.get(renewed.location ?? '');
        assert.deepEqual(flashOf(after), ['success', 'The loan is renewed.']);
        assert.match(text(after.html), /\(1 renewal left\)/);

        // Someone waits: the renewal is refused with the reason, as a message on the page.
        await reserve(api, bob.session as TestSession, book.id);
        const refused = await alice.post(after, renewAction);
        assert.match(
          flashOf(await alice.get(refused.location ?? ''))?.[1] ?? '',
          /while someone waits for the book/,
        );

        assert.equal((await alice.get('/web/admin/audit')).status, 403);
        const audit = await adminPages.get(`/web/admin/audit?bookId=${book.id}`);
        assert.equal(audit.status, 200);
        const rows = [...audit.html.matchAll(/<tr><td>[^<]*<\/td><td>([^<]*)<\/td><td>([^<]*)<\/td>/g)].map(
          (match) => `${match[1]} by ${match[2]}`,
        );
        assert.deepEqual(rows, [
          'Reserved by Bob &#60;b&#62;Reader&#60;/b&#62;',
          'Loan renewed by Alice Reader',
          'Collected (loan starts) by Ada Admin',
          'Ready for pickup by System',
          'Reserved by Alice Reader',
          'Book added by Ada Admin',
        ]);
        const renewals = await adminPages.get(`/web/admin/audit?bookId=${book.id}&kind=loan.renewed`);
        assert.equal([...renewals.html.matchAll(/<tr><td>/g)].length, 1);
        assert.match(renewals.html, /<option value="loan.renewed" selected>/);
        const all = await adminPages.get('/web/admin/audit?kind=');
        assert.equal(all.status, 200, 'the form sends "All kinds" as kind=');
        own.clock.advance(60 * 86_400_000);
        const late = await alice.get('/web/reservations');
        assert.match(late.html, /<strong class="overdue">Overdue<\/strong>/);
        assert.match(text(late.html), /overdue by \d+ days, was due/);
        assert.doesNotMatch(late.html, /action="[^"]+\/renew"/, 'no Renew button once overdue');
        assert.equal((await alice.get('/web/admin/overdue')).status, 403);
        const overdue = await adminPages.get('/web/admin/overdue');
        assert.equal(overdue.status, 200);
        assert.match(overdue.html, /<h1>Overdue loans<\/h1>/);
        assert.match(overdue.html, /Lent on the web/);
        assert.match(overdue.html, /Reserved by <strong>Alice Reader/);
        assert.match(
          overdue.html,
          new RegExp(`action="/web/books/${book.id}/reservations/${held.id}/return"`),
        );
      } finally {
        await own.close();
      }
    });

    test('notices on the pages: kinds turned off on the account page, the calendar address and its rotation, failed notices for admins only, the mailbox', async () => {
      const account = await alice.get('/web/account');
      assert.equal(account.status, 200);
      assert.match(account.html, /<h1>Account<\/h1>/);
      const token = /name="_csrf" value="([^"]+)"/.exec(account.html)?.[1] ?? '';
      // A browser sends only the ticked boxes.
      const saved = await alice.postRaw(
        '/web/account/notices',
        `_csrf=${token}&notice-pickup.ready=on&notice-loan.overdue=on`,
      );
      assert.equal(saved.status, 303);
      const after = await alice.get(saved.location ?? '');
      assert.deepEqual(flashOf(after), ['success', 'Notice settings saved.']);
      const ticked = [
        ...after.html.matchAll(/<input type="checkbox" id="notice-([a-z._]+)"[^>]* checked>/g),
      ].map((match) => match[1]);
      assert.deepEqual(ticked, ['pickup.ready', 'loan.overdue']);
      const settings = await api.get('/me/notice-settings', { session: alice.session });
      assert.deepEqual(settings.body.disabledKinds, ['pickup.reminder', 'pickup.expired', 'loan.due_soon']);
      const address = (page: Page) => /id="calendar-url"[^>]* value="([^"]+)"/.exec(page.html)?.[1];
      assert.equal(address(after), settings.body.calendarUrl);
      // Without the form's token: sent back with a message, and the address stays.
      const refused = await alice.postRaw('/web/account/calendar', 'back=%2Fweb%2Faccount');
      assert.equal(refused.status, 303);
      const kept = await alice.get(refused.location ?? '');
      assert.deepEqual(flashOf(kept), ['error', 'The form had expired. Please try again.']);
      assert.equal(address(kept), address(after));
      const rotated = await alice.postRaw('/web/account/calendar', `_csrf=${token}`);
      assert.equal(rotated.status, 303);
      const fresh = await alice.get(rotated.location ?? '');
      assert.match(flashOf(fresh)?.[1] ?? '', /new address/);
      assert.notEqual(address(fresh), address(after));
      assert.equal((await fetch(address(after) ?? '')).status, 404);

      assert.equal((await alice.get('/web/admin/notices')).status, 403);
      const failed = await adminPages.get('/web/admin/notices');
      assert.equal(failed.status, 200);
      assert.match(failed.html, /<h1>Failed notices<\/h1>/);
      // No SMTP_URL in these tests: the development mailbox is there.
      const mailbox = await alice.get('/web/dev/mailbox');
      assert.equal(mailbox.status, 200);
      assert.match(mailbox.html, /<h1>Development mailbox<\/h1>/);
    });

    test('two admins editing one book: the later save is refused with its values kept, then applies', async () => {
      const book = await createBook(api, admin, { title: 'Contested', copies: 1 });
      const other = new PageClient(service.url, await createTestSession(service, { role: 'ROLE_ADMIN' }));
      const mine = await adminPages.get(`/web/admin/books/${book.id}/edit`);
      const theirs = await other.get(`/web/admin/books/${book.id}/edit`);
      assert.equal(
        (await other.post(theirs, `/web/admin/books/${book.id}`, { title: 'Theirs' })).status,
        303,
      );
      const refused = await adminPages.post(mine, `/web/admin/books/${book.id}`, { title: 'Mine' });
      assert.equal(refused.status, 412);
      assert.match(text(refused.html), /This book changed while you were editing it/);
      assert.match(refused.html, /id="title" name="title" required maxlength="255" value="Mine"/);
      assert.equal((await api.get(`/books/${book.id}`, { session: admin })).body.title, 'Theirs');
      const again = await adminPages.post(refused, `/web/admin/books/${book.id}`);
      assert.equal(again.status, 303);
      assert.equal((await api.get(`/books/${book.id}`, { session: admin })).body.title, 'Mine');
    });

    test(`a book titled ${XSS_TITLE} is text on every page`, async () => {
      const book = await createBook(api, admin, { title: XSS_TITLE, author: XSS_AUTHOR, copies: 1 });
      const page = await alice.get(`/web/books/${book.id}`);
      await alice.post(page, `/web/books/${book.id}/reserve`);
      const pages = [
        await alice.get('/'),
        await alice.get(`/?q=${encodeURIComponent('alert')}`),
        await alice.get(`/web/books/${book.id}`),
        await alice.get('/web/reservations'),
        await adminPages.get('/web/admin/reservations'),
        await adminPages.get(`/web/admin/reservations?bookId=${book.id}`),
        await adminPages.get(`/web/admin/books/${book.id}/edit`),
      ];
      for (const shown of pages) {
        assert.equal(shown.status, 200);
        assert.ok(shown.html.includes(ESCAPED_TITLE), 'the title is there, escaped');
        assert.ok(!shown.html.includes(XSS_TITLE), 'never as markup');
        assert.ok(!shown.html.includes('<img'), 'the author is never markup either');
      }
      // The user's name is escaped in the header too.
      const bobs = await bob.get('/');
      assert.match(bobs.html, /Signed in as <strong>Bob &#60;b&#62;Reader&#60;\/b&#62;<\/strong>/);
    });
  });
}
