import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { chromiumSkip, launchChromium } from '../support/chromium.js';
import { ApiClient } from '../support/client.js';
import { createBook } from '../support/fixtures-api.js';
import { type LoginEnvironment, startLoginEnvironment } from '../support/login-environment.js';
import { createTestSession } from '../support/test-sessions.js';

const skip = chromiumSkip();
let env: LoginEnvironment;
let browser: Browser;

before(async () => {
  if (skip) return;
  env = await startLoginEnvironment('pglite');
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await env?.close();
});

test('in Chromium: log in through the provider page, reserve a book with fetch, log out', {
  skip,
}, async () => {
  const book = await createBook(
    new ApiClient(env.app),
    await createTestSession(env.service, { role: 'ROLE_ADMIN' }),
  );
  const context = await browser.newContext();
  const page = await context.newPage();

  // A protected page sends the browser to the login page, which links the provider.
  await page.goto(`${env.app}/books/${book.id}`);
  assert.equal(page.url(), `${env.app}/login`);
  await page.getByRole('link', { name: 'Development sign-in' }).click();

  // The provider's own page: type the credentials it lists.
  await page.waitForURL(`${env.idp.issuer}/interaction/**`);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('alice');
  await page.getByRole('button', { name: 'Sign in' }).click();

  // Back at the URL the browser first asked for, now signed in.
  await page.waitForURL(`${env.app}/books/${book.id}`);
  assert.match((await page.textContent('body')) ?? '', new RegExp(book.title));
  const cookies = await context.cookies(env.app);
  const session = cookies.find((cookie) => cookie.name === 'JSESSIONID');
  assert.equal(session?.httpOnly, true);
  assert.equal(session?.sameSite, 'Lax');
  // Not HttpOnly: the page's own script reads it to fill the header, as Spring's CookieCsrfTokenRepository expects.
  const xsrfCookie = cookies.find((cookie) => cookie.name === 'XSRF-TOKEN');
  assert.equal(xsrfCookie?.httpOnly, false);
  const xsrf = xsrfCookie?.value ?? '';

  // The page's script reserves the book, echoing the XSRF-TOKEN cookie in the header.
  const reservation = await page.evaluate(
    async ({ bookId, xsrf }) => {
      const response = await fetch(`/books/${bookId}/reservations`, {
        method: 'POST',
        headers: { 'X-XSRF-TOKEN': xsrf, accept: 'application/json' },
      });
      return { status: response.status, body: (await response.json()) as { status: string; bookId: string } };
    },
    { bookId: book.id as string, xsrf },
  );
  assert.equal(reservation.status, 201, JSON.stringify(reservation.body));
  assert.equal(reservation.body.status, 'READY');
  assert.equal(reservation.body.bookId, book.id);

  // Logging out: the service ends the session and hands over the provider's end-session URL.
  const logout = await page.evaluate(async (xsrf) => {
    const response = await fetch('/logout', { method: 'POST', headers: { 'X-XSRF-TOKEN': xsrf } });
    return { status: response.status, body: (await response.json()) as { logoutUrl: string } };
  }, xsrf);
  assert.equal(logout.status, 200);
  await page.goto(logout.body.logoutUrl);
  await page.waitForURL(`${env.app}/login?logout`);
  assert.match((await page.textContent('body')) ?? '', /You have been signed out/);

  // The login page's CSP allows the page no fetch: ask with the context's cookies.
  const afterLogout = await context.request.get(`${env.app}/me`, { headers: { accept: 'application/json' } });
  assert.equal(afterLogout.status(), 401);
  await context.close();
});

test('in Chromium: sign in, use Swagger UI under its CSP, sign out through the pages; every page has the headers', {
  skip,
}, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content.Security.Policy|Refused to/i.test(message.text())) {
      violations.push(`${page.url()}: ${message.text()} at ${JSON.stringify(message.location())}`);
    }
  });
  const documents = new Map<string, Record<string, string>>();
  page.on('response', (response) => {
    if (response.request().resourceType() === 'document' && response.url().startsWith(env.app)) {
      documents.set(new URL(response.url()).pathname, response.headers());
    }
  });

  await page.goto(`${env.app}/login`);
  await page.getByRole('link', { name: 'Development sign-in' }).click();
  await page.waitForURL(`${env.idp.issuer}/interaction/**`);
  await page.getByLabel('Username').fill('alice');
  await page.getByLabel('Password').fill('alice');
  await page.getByRole('button', { name: 'Sign in' }).click();
  // No saved URL: the login lands on the home page, whose header links the API docs.
  await page.waitForURL(`${env.app}/`);
  await page.getByRole('link', { name: 'API docs' }).click();
  await page.waitForURL(`${env.app}/swagger-ui/`);

  // Branded, exploring /v3/api-docs, fully rendered under the strict CSP.
  assert.equal(await page.title(), 'Book collection service: API');
  await page.locator('.swagger-ui .info .title').filter({ hasText: 'Book collection service' }).waitFor();
  assert.equal(await page.locator('.download-url-input').inputValue(), '/v3/api-docs');
  assert.equal(await page.locator('.topbar img[src^="data:image/svg+xml"]').count(), 1, 'our logo');
  const me = await page.evaluate(
    async () => (await fetch('/me', { headers: { accept: 'application/json' } })).status,
  );
  assert.equal(me, 200);

  // Sign out: the link above Swagger UI, then the confirmation form, then the provider, then /login?logout.
  await page.getByRole('link', { name: 'Sign out' }).click();
  await page.waitForURL(`${env.app}/logout`);
  assert.match((await page.textContent('body')) ?? '', /Are you sure you want to sign out\?/);
  await page.locator('main').getByRole('button', { name: 'Sign out' }).click();
  await page.waitForURL(`${env.app}/login?logout`);
  assert.match((await page.textContent('body')) ?? '', /You have been signed out/);
  // The login page's CSP allows the page no fetch: ask with the context's cookies.
  const afterLogout = await context.request.get(`${env.app}/me`, { headers: { accept: 'application/json' } });
  assert.equal(afterLogout.status(), 401);

  assert.deepEqual(violations, [], 'no page broke its Content-Security-Policy');
  for (const path of ['/login', '/swagger-ui/', '/logout']) {
    const headers = documents.get(path);
    assert.ok(headers, `Chromium loaded ${path}`);
    assert.equal(headers['x-content-type-options'], 'nosniff', path);
    assert.equal(headers['x-frame-options'], 'DENY', path);
    assert.equal(headers['cache-control'], 'no-cache, no-store, max-age=0, must-revalidate', path);
    assert.match(headers['content-security-policy'] ?? '', /frame-ancestors 'none'/, path);
    assert.doesNotMatch(headers['content-security-policy'] ?? '', /unsafe-inline/, path);
  }
  await context.close();
});
