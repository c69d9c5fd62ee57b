import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';
import { chromiumSkip, launchChromium } from './support/chromium.js';
import { ApiClient } from './support/client.js';
import { createBook, reserve } from './support/fixtures-api.js';
import { type LoginEnvironment, startLoginEnvironment } from './support/login-environment.js';
import { createTestSession, type TestSession } from './support/test-sessions.js';

// The web front in Chromium, as people use it: sign in through the provider, search, reserve, wait,
// cancel, and as an admin create a book and collect and return it; every page is checked with axe-core
// (no serious or critical violation), under its CSP (no violation), and never runs a script from data.

const skip = chromiumSkip();
const XSS_TITLE = '<script>alert(1)</script>';
const SCREENSHOTS = fileURLToPath(new URL('../docs/screenshots/', import.meta.url));
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
// A fixed service clock, moved on a minute before each reservation: the dates on the pages, the order
// of the lists, and so the committed screenshots are the same in every run.
const SERVICE_TIME = Date.parse('2026-03-02T09:30:00Z');
const DAY_MS = 24 * 60 * 60 * 1000;
const PICKUP_MS = 3 * DAY_MS;
const LOAN_MS = 21 * DAY_MS;
const stamp = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
/** Moves the service's clock on a minute; returns the new time. */
const tick = () => {
  env.service.clock.advance(60_000);
  return env.service.clock.nowMs;
};
const readyUntil = (reservedAt: number) => `Ready for pickup: pick it up by ${stamp(reservedAt + PICKUP_MS)}`;

let env: LoginEnvironment;
let browser: Browser;
let api: ApiClient;
let librarian: TestSession;
const books: Record<string, string> = {};
/** What went wrong in any page: CSP violations, script dialogs, page errors. */
const incidents: string[] = [];

before(async () => {
  if (skip) return;
  // No sweep during the run: the audit log's page (and its screenshot) shows only what the stories did.
  env = await startLoginEnvironment('pglite', { EXPIRY_SWEEP_INTERVAL: '24h' });
  env.service.clock.nowMs = SERVICE_TIME;
  browser = await launchChromium();
  api = new ApiClient(env.app);
  librarian = await createTestSession(env.service, { role: 'ROLE_ADMIN' });
  const catalogue: [string, string, string, number][] = [
    ['Dune', 'Frank Herbert', 'A desert planet, its spice, and the family that comes to rule it.', 3],
    [
      'The Dispossessed',
      'Ursula K. Le Guin',
      'A physicist between an anarchist moon and its rich planet.',
      1,
    ],
    ['Solaris', 'Stanisław Lem', 'A living ocean that answers its visitors with their memories.', 1],
    [
      'Kindred',
      'Octavia E. Butler',
      'A writer in 1976 California is pulled back to a Maryland plantation.',
      2,
    ],
    ['Neuromancer', 'William Gibson', 'A washed-up hacker is hired for one last job in cyberspace.', 2],
    [XSS_TITLE, 'Mallory', 'A title that must stay text.', 1],
  ];
  for (const [title, author, synopsis, copies] of catalogue) {
    books[title] = (await createBook(api, librarian, { title, author, synopsis, copies })).id;
  }
  // Other readers: Dune has a copy held, The Dispossessed a queue of three behind its one copy.
  const reader = (n: number) =>
    createTestSession(env.service, { name: `Reader ${n}`, email: `reader${n}@example.test` });
  tick();
  await reserve(api, await reader(1), books.Dune as string);
  for (let i = 2; i < 6; i++) {
    tick();
    await reserve(api, await reader(i), books['The Dispossessed'] as string);
  }
  mkdirSync(SCREENSHOTS, { recursive: true });
});
after(async () => {
  await browser?.close();
  await env?.close();
});

async function newContext(): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 800 } });
  context.on('page', watch);
  // A shared, loaded machine: generous waits.
  context.setDefaultTimeout(60_000);
  return context;
}

function watch(page: Page): void {
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text()))
      incidents.push(`${page.url()}: ${message.text()}`);
  });
  page.on('dialog', (dialog) => {
    incidents.push(`${page.url()}: a script opened a ${dialog.type()} dialog: ${dialog.message()}`);
    void dialog.dismiss();
  });
  page.on('pageerror', (error) => incidents.push(`${page.url()}: ${error.message}`));
}

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core, run in the page (through the DevTools protocol, which the page's CSP does not govern). */
async function assertAccessible(page: Page, what: string): Promise<void> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    const axe = (globalThis as unknown as { axe: { run(): Promise<{ violations: AxeViolation[] }> } }).axe;
    return (await axe.run()).violations;
  });
  const serious = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  assert.deepEqual(serious, [], `${what}: no serious or critical accessibility violation`);
}

/** `mask`: what differs in every run (random ids, the port), painted over so the file changes only with the page. */
async function screenshot(
  page: Page,
  name: string,
  { mask = [], fullPage = true }: { mask?: Locator[]; fullPage?: boolean } = {},
): Promise<void> {
  await page.screenshot({ path: `${SCREENSHOTS}${name}.png`, fullPage, mask });
}

const flash = (page: Page) => page.locator('p.flash').textContent();

/** Signs in through the provider's page, starting from `path`, and lands back on `path`. */
async function signIn(context: BrowserContext, username: string, path = '/'): Promise<Page> {
  const page = await context.newPage();
  await page.goto(`${env.app}${path}`);
  await page.waitForURL(`${env.app}/login`);
  await page.getByRole('link', { name: 'Development sign-in' }).click();
  await page.waitForURL(`${env.idp.issuer}/interaction/**`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(username);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${env.app}${path}`);
  return page;
}

async function signOut(page: Page): Promise<void> {
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${env.app}/login?logout`);
  assert.equal(await flash(page), 'You have been signed out.');
  await assertAccessible(page, 'login page');
  // The pages' CSP allows no fetch from the page: ask with the context's cookies instead.
  const me = await page.context().request.get(`${env.app}/me`, { headers: { accept: 'application/json' } });
  assert.equal(me.status(), 401);
}

test('alice signs in, searches, opens a book, reserves it, finds it in My reservations, cancels it, signs out', {
  skip,
}, async () => {
  const context = await newContext();
  const page = await signIn(context, 'alice');
  assert.equal(await page.title(), 'Books · Book collection');
  await assertAccessible(page, 'home');
  assert.match((await page.locator('header').textContent()) ?? '', /Signed in as Alice Liddell/);
  const dune = page.locator('li.card', { hasText: 'Dune' });
  assert.equal(await dune.locator('.availability').textContent(), '2 of 3 available');
  const dispossessed = page.locator('li.card', { hasText: 'The Dispossessed' });
  assert.equal(await dispossessed.locator('.availability').textContent(), '0 of 1 available, 3 waiting');
  await screenshot(page, 'home');

  await page.getByLabel('Search').fill('desert planet');
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.waitForURL(/\?q=desert\+planet/);
  assert.equal(await page.locator('.summary').textContent(), '1 book matches “desert planet”');
  await assertAccessible(page, 'search results');
  await page.getByRole('link', { name: 'Dune' }).click();
  await page.waitForURL(`${env.app}/web/books/${books.Dune}`);
  assert.equal(await page.locator('h1').textContent(), 'Dune');
  assert.equal(await page.locator('article .availability').textContent(), '2 of 3 available');

  // A second tab still shows the Reserve button after the first one has reserved.
  const stale = await context.newPage();
  await stale.goto(page.url());
  const reservedAt = tick();
  await page.getByRole('button', { name: 'Reserve' }).click();
  await page.waitForURL(`${env.app}/web/books/${books.Dune}`);
  assert.equal(await flash(page), 'Reserved: a copy is held for you. See the pickup deadline below.');
  assert.equal(await page.locator('.status').textContent(), readyUntil(reservedAt));
  assert.equal(await page.locator('article .availability').textContent(), '1 of 3 available');
  await assertAccessible(page, 'book page');
  await page.setViewportSize({ width: 390, height: 844 });
  await screenshot(page, 'book-mobile');
  await page.setViewportSize({ width: 1100, height: 800 });
  await stale.getByRole('button', { name: 'Reserve' }).click();
  await stale.waitForURL(page.url());
  assert.equal(
    await flash(stale),
    'You already hold a reservation of this book. Cancel it, or finish it, before reserving it again.',
  );
  await assertAccessible(stale, 'book page with an error');
  await stale.close();

  // The XSS book: reserved too, so it shows on every page, as text.
  await page.goto(`${env.app}/`);
  await page.getByRole('link', { name: XSS_TITLE }).click();
  assert.equal(await page.locator('h1').textContent(), XSS_TITLE);
  tick();
  await page.getByRole('button', { name: 'Reserve' }).click();
  await page.waitForURL(`${env.app}/web/books/${books[XSS_TITLE]}`);

  await page.getByRole('link', { name: 'My reservations' }).click();
  await page.waitForURL(`${env.app}/web/reservations`);
  const mine = page.locator('li.card', { hasText: 'Dune' });
  assert.equal(await mine.locator('.status').textContent(), readyUntil(reservedAt));
  assert.equal(await page.locator('li.card h2', { hasText: 'alert' }).textContent(), XSS_TITLE);
  await assertAccessible(page, 'My reservations');
  await screenshot(page, 'my-reservations');
  await mine.getByRole('button', { name: 'Cancel reservation' }).click();
  await page.waitForURL(`${env.app}/web/reservations`);
  assert.equal(await flash(page), 'The reservation is cancelled.');
  assert.equal(
    await page.locator('li.card', { hasText: 'Dune' }).locator('.status').textContent(),
    'Cancelled',
  );
  assert.equal(await page.locator('li.card', { hasText: 'Dune' }).getByRole('button').count(), 0);

  await signOut(page);
  await context.close();
  assert.deepEqual(incidents, []);
});

test('bob joins the waiting list for the single copy alice holds, and it is READY for him when she cancels', {
  skip,
}, async () => {
  const solaris = `/web/books/${books.Solaris}`;
  const aliceContext = await newContext();
  const alice = await signIn(aliceContext, 'alice', solaris);
  tick();
  await alice.getByRole('button', { name: 'Reserve' }).click();
  await alice.waitForURL(`${env.app}${solaris}`);
  assert.equal(await alice.locator('article .availability').textContent(), '0 of 1 available');

  const bobContext = await newContext();
  const bob = await signIn(bobContext, 'bob', solaris);
  assert.equal(await bob.getByRole('button', { name: 'Reserve' }).count(), 0);
  tick();
  await bob.getByRole('button', { name: 'Join the waiting list' }).click();
  await bob.waitForURL(`${env.app}${solaris}`);
  assert.equal(await flash(bob), 'You joined the waiting list: you are number 1 in the queue.');
  assert.equal(await bob.locator('.status').textContent(), 'Waiting: number 1 in the queue');
  assert.equal(await bob.locator('article .availability').textContent(), '0 of 1 available, 1 waiting');
  await assertAccessible(bob, 'book page, waiting');

  const promotedAt = tick();
  await alice.getByRole('button', { name: 'Cancel reservation' }).click();
  await alice.waitForURL(`${env.app}${solaris}`);
  assert.equal(await flash(alice), 'The reservation is cancelled.');

  await bob.reload();
  assert.equal(await bob.locator('.status').textContent(), readyUntil(promotedAt));
  await bob.getByRole('link', { name: 'My reservations' }).click();
  assert.match(
    (await bob.locator('li.card', { hasText: 'Solaris' }).textContent()) ?? '',
    /Ready for pickup/,
  );

  await signOut(alice);
  await signOut(bob);
  await aliceContext.close();
  await bobContext.close();
  assert.deepEqual(incidents, []);
});

test('admin creates a book, marks a reservation collected and then returned, and signs out', {
  skip,
}, async () => {
  const context = await newContext();
  const page = await signIn(context, 'admin');
  await page.getByRole('link', { name: 'Add a book' }).click();
  await page.waitForURL(`${env.app}/web/admin/books/new`);
  await assertAccessible(page, 'new book form');
  await page.getByLabel('Title').fill('The Left Hand of Darkness');
  await page.getByLabel('Author').fill('Ursula K. Le Guin');
  await page.getByLabel('Synopsis').fill('An envoy on a planet of perpetual winter.');
  await page.getByLabel('Copies').fill('2');
  await page.getByRole('button', { name: 'Create book' }).click();
  await page.waitForURL(/\/web\/books\/[0-9a-f-]{36}$/);
  assert.equal(await flash(page), 'The book was created.');
  assert.equal(await page.locator('h1').textContent(), 'The Left Hand of Darkness');
  assert.equal(await page.locator('article .availability').textContent(), '2 of 2 available');
  const bookId = page.url().split('/').pop() ?? '';

  await page.getByRole('link', { name: 'Edit book' }).click();
  await assertAccessible(page, 'edit book form');
  await page.getByLabel('Copies').fill('3');
  await page.getByRole('button', { name: 'Save changes' }).click();
  await page.waitForURL(`${env.app}/web/books/${bookId}`);
  assert.equal(await flash(page), 'The book was saved.');
  assert.equal(await page.locator('article .availability').textContent(), '3 of 3 available');

  // A reader reserves it; the admin hands the copy over, and later takes it back.
  tick();
  const carol = await createTestSession(env.service, { name: 'Carol Reader', email: 'carol@example.test' });
  await reserve(api, carol, bookId);
  await page.getByRole('link', { name: 'All reservations' }).click();
  await page.getByRole('link', { name: 'Ready for pickup' }).click();
  await page.waitForURL(/status=READY/);
  const card = page.locator('li.card', { hasText: 'The Left Hand of Darkness' });
  assert.match((await card.textContent()) ?? '', /Reserved by Carol Reader/);
  const collectedAt = env.service.clock.nowMs;
  await card.getByRole('button', { name: 'Mark collected' }).click();
  await page.waitForURL(/status=READY/);
  assert.equal(await flash(page), 'Marked collected.');
  await page.getByRole('link', { name: 'Collected' }).click();
  await page.waitForURL(/status=COLLECTED/);
  const lent = page.locator('li.card', { hasText: 'The Left Hand of Darkness' });
  assert.equal(
    await lent.locator('.status').textContent(),
    `Collected: due back ${stamp(collectedAt + LOAN_MS)} (2 renewals left)`,
  );
  await lent.getByRole('button', { name: 'Mark returned' }).click();
  await page.waitForURL(/status=COLLECTED/);
  assert.equal(await flash(page), 'Marked returned.');

  await page.getByRole('link', { name: 'All', exact: true }).click();
  await page.waitForURL(`${env.app}/web/admin/reservations`);
  const returned = page.locator('li.card', { hasText: 'The Left Hand of Darkness' });
  assert.equal(await returned.locator('.status').textContent(), 'Returned');
  assert.equal(await page.locator('li.card h2', { hasText: 'alert' }).first().textContent(), XSS_TITLE);
  await assertAccessible(page, 'all reservations');
  await screenshot(page, 'admin-reservations');

  await page.goto(`${env.app}/web/books/${books[XSS_TITLE]}`);
  assert.equal(await page.locator('h1').textContent(), XSS_TITLE);
  await assertAccessible(page, 'book page, admin');

  await signOut(page);
  await context.close();
  assert.deepEqual(incidents, []);
});

test('carol renews her loan; weeks later it is overdue, and the admin finds it, takes it back and reads the audit log', {
  skip,
}, async () => {
  const kindred = `/web/books/${books.Kindred}`;
  const carolContext = await newContext();
  const carol = await signIn(carolContext, 'carol', kindred);
  tick();
  await carol.getByRole('button', { name: 'Reserve' }).click();
  await carol.waitForURL(`${env.app}${kindred}`);

  const adminContext = await newContext();
  const admin = await signIn(adminContext, 'admin', '/web/admin/reservations?status=READY');
  const collectedAt = tick();
  await admin
    .locator('li.card', { hasText: 'Kindred' })
    .getByRole('button', { name: 'Mark collected' })
    .click();
  await admin.waitForURL(/status=READY/);
  assert.equal(await flash(admin), 'Marked collected.');

  await carol.getByRole('link', { name: 'My reservations' }).click();
  await carol.waitForURL(`${env.app}/web/reservations`);
  const loan = carol.locator('li.card', { hasText: 'Kindred' });
  assert.equal(
    await loan.locator('.status').textContent(),
    `Collected: due back ${stamp(collectedAt + LOAN_MS)} (2 renewals left)`,
  );
  tick();
  await loan.getByRole('button', { name: 'Renew' }).click();
  await carol.waitForURL(`${env.app}/web/reservations`);
  assert.equal(await flash(carol), 'The loan is renewed.');
  assert.equal(
    await carol.locator('li.card', { hasText: 'Kindred' }).locator('.status').textContent(),
    `Collected: due back ${stamp(collectedAt + 2 * LOAN_MS)} (1 renewal left)`,
  );
  await assertAccessible(carol, 'My reservations with a loan');
  await screenshot(carol, 'my-loans');

  // A week past the renewed due date: the sessions have ended, so both sign in again.
  env.service.clock.nowMs = collectedAt + 2 * LOAN_MS + 7 * DAY_MS;
  await carolContext.close();
  await adminContext.close();
  const carolLater = await newContext();
  const carolAgain = await signIn(carolLater, 'carol', '/web/reservations');
  const late = carolAgain.locator('li.card', { hasText: 'Kindred' });
  assert.match(
    (await late.locator('.status').textContent()) ?? '',
    /^Collected Overdue: overdue by 7 days, was due /,
  );
  assert.equal(
    await late.getByRole('button', { name: 'Renew' }).count(),
    0,
    'an overdue loan is not renewed',
  );
  await assertAccessible(carolAgain, 'My reservations, overdue');

  const adminLater = await newContext();
  const librarianPage = await signIn(adminLater, 'admin');
  await librarianPage.getByRole('link', { name: 'Overdue loans' }).click();
  await librarianPage.waitForURL(`${env.app}/web/admin/overdue`);
  const overdue = librarianPage.locator('li.card', { hasText: 'Kindred' });
  assert.match((await overdue.textContent()) ?? '', /Reserved by Carol/);
  assert.match((await overdue.locator('.status').textContent()) ?? '', /Overdue: overdue by 7 days/);
  await assertAccessible(librarianPage, 'Overdue loans');
  await screenshot(librarianPage, 'overdue-loans');
  await overdue.getByRole('button', { name: 'Mark returned' }).click();
  await librarianPage.waitForURL(`${env.app}/web/admin/overdue`);
  assert.equal(await flash(librarianPage), 'Marked returned.');
  assert.equal(await librarianPage.locator('p.empty').textContent(), 'No loan is overdue.');

  await librarianPage.getByRole('link', { name: 'Audit log' }).click();
  await librarianPage.waitForURL(`${env.app}/web/admin/audit`);
  assert.equal(await librarianPage.locator('h1').textContent(), 'Audit log');
  const first = librarianPage.locator('table.audit tbody tr').first();
  assert.deepEqual((await first.locator('td').allTextContents()).slice(1, 5), [
    'Returned',
    'Ada Admin',
    'Kindred',
    (await first.locator('td').nth(4).textContent()) ?? '',
  ]);
  assert.match((await first.locator('td').nth(4).textContent()) ?? '', /Carol/);
  await assertAccessible(librarianPage, 'Audit log');
  await screenshot(librarianPage, 'audit-log');
  await librarianPage.getByLabel('Kind').selectOption('loan.renewed');
  await librarianPage.getByRole('button', { name: 'Show' }).click();
  await librarianPage.waitForURL(/kind=loan\.renewed/);
  const renewals = librarianPage.locator('table.audit tbody tr');
  assert.equal(await renewals.count(), 1);
  assert.deepEqual((await renewals.first().locator('td').allTextContents()).slice(1, 4), [
    'Loan renewed',
    (await renewals.first().locator('td').nth(2).textContent()) ?? '',
    'Kindred',
  ]);
  assert.match((await renewals.first().locator('td').nth(2).textContent()) ?? '', /Carol/);

  await signOut(carolAgain);
  await signOut(librarianPage);
  await carolLater.close();
  await adminLater.close();
  assert.deepEqual(incidents, []);
});

test('bob turns a notice kind off on his account page, rotates his calendar address and reads his mail in the development mailbox; the admin resends a failed notice', {
  skip,
}, async () => {
  const neuromancer = `/web/books/${books.Neuromancer}`;
  const bobContext = await newContext();
  const bob = await signIn(bobContext, 'bob', neuromancer);
  tick();
  await bob.getByRole('button', { name: 'Reserve' }).click();
  await bob.waitForURL(`${env.app}${neuromancer}`);

  await bob.getByRole('link', { name: 'Account' }).click();
  await bob.waitForURL(`${env.app}/web/account`);
  assert.equal(await bob.getByLabel('A loan is due soon').isChecked(), true);
  const address = await bob.getByLabel('Calendar address').inputValue();
  assert.match(address, /^http:\/\/127\.0\.0\.1:\d+\/calendar\/[A-Za-z0-9_-]{75}\.ics$/);
  await assertAccessible(bob, 'Account');
  await screenshot(bob, 'account', { mask: [bob.getByLabel('Calendar address')] });
  await bob.getByLabel('A loan is due soon').uncheck();
  await bob.getByRole('button', { name: 'Save' }).click();
  await bob.waitForURL(`${env.app}/web/account`);
  assert.equal(await flash(bob), 'Notice settings saved.');
  assert.equal(await bob.getByLabel('A loan is due soon').isChecked(), false);
  assert.equal(await bob.getByLabel('A copy is ready for pickup').isChecked(), true);

  const feed = await fetch(address);
  assert.equal(feed.status, 200);
  assert.match(await feed.text(), /SUMMARY:Pick up "Neuromancer"/);
  await bob.getByRole('button', { name: 'New address (the old one stops working)' }).click();
  await bob.waitForURL(`${env.app}/web/account`);
  assert.match((await flash(bob)) ?? '', /new address/);
  const rotated = await bob.getByLabel('Calendar address').inputValue();
  assert.notEqual(rotated, address);
  assert.equal((await fetch(address)).status, 404);
  assert.equal((await fetch(rotated)).status, 200);

  // No SMTP_URL here: the notice of Bob's held copy is in the development mailbox.
  await bob.getByRole('link', { name: 'development mailbox' }).click();
  await bob.waitForURL(`${env.app}/web/dev/mailbox`);
  const mail = bob.locator('article.mail', { hasText: 'Ready for pickup: Neuromancer' });
  for (let tries = 0; (await mail.count()) === 0; tries++) {
    assert.ok(tries < 100, 'the mail of the held copy reached the mailbox');
    await new Promise((resolve) => setTimeout(resolve, 100));
    await bob.reload();
  }
  assert.match((await mail.textContent()) ?? '', /bob@example\.com/);
  assert.match((await mail.locator('pre').textContent()) ?? '', /^Hello Bob Builder,/);
  await assertAccessible(bob, 'Development mailbox');
  // The first screen of it: the mailbox holds every notice of the stories so far.
  await screenshot(bob, 'dev-mailbox', { mask: [bob.locator('article.mail dd code')], fullPage: false });

  // A notice every attempt failed for (as the SMTP tests make them), for the admin to resend.
  const [row] = await env.service.db.query<{ id: string }>(
    `insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, status,
                          attempts, next_attempt_at, last_error)
     select 'loan.overdue', r.user_id, r.id, r.book_id, 'Neuromancer', $2, $2, 'failed', 8, $2,
            'Message failed: 554 5.1.1 Mailbox unavailable'
     from reservations r where r.book_id = $1 limit 1 returning id`,
    [books.Neuromancer, new Date(env.service.clock.nowMs)],
  );
  assert.ok(row);
  const adminContext = await newContext();
  const admin = await signIn(adminContext, 'admin');
  await admin.getByRole('link', { name: 'Failed notices' }).click();
  await admin.waitForURL(`${env.app}/web/admin/notices`);
  const failed = admin.locator('tbody tr', { hasText: 'Neuromancer' });
  assert.match((await failed.textContent()) ?? '', /554 5\.1\.1 Mailbox unavailable/);
  await assertAccessible(admin, 'Failed notices');
  await screenshot(admin, 'failed-notices');
  await failed.getByRole('button', { name: 'Resend' }).click();
  await admin.waitForURL(`${env.app}/web/admin/notices`);
  assert.equal(await flash(admin), 'The notice will be sent again.');
  assert.equal(await admin.locator('p.empty').textContent(), 'No failed notices.');

  await signOut(bob);
  await signOut(admin);
  await bobContext.close();
  await adminContext.close();
  assert.deepEqual(incidents, []);
});
