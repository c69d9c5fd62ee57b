import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { freePort, spawnManaged, waitForPort } from '@platform/testkit';
import { migrate } from '../../src/db/migrate.js';
import { openPglite } from '../../src/db/pglite.js';
import { UsersRepository } from '../../src/modules/users/users.repository.js';
import { packageRoot } from '../../src/paths.js';
import { books, tsx } from '../support/books-command.js';
import { CookieBrowser } from '../support/cookie-browser.js';
import { signInThroughService } from '../support/dev-login.js';
import { migratedDataDir } from '../support/pglite-template.js';

const scratch = await mkdtemp(join(tmpdir(), 'books-users-'));
after(() => rm(scratch, { recursive: true, force: true }));
// Migrated already, from the test template: a new directory would cost an initdb of 8-16 s.
const dataDir = await migratedDataDir(scratch);

test('books users promote|demote changes the role by email', async () => {
  const db = await openPglite(dataDir);
  await migrate(db);
  await new UsersRepository(db, []).upsertFromLogin({
    issuer: 'http://idp.test',
    subject: 'carol',
    email: 'carol@example.com',
    emailVerified: true,
    name: 'Carol',
  });
  await db.close();
  const env = { DATABASE_URL: `pglite:${dataDir}` };
  const roleOfCarol = async () => {
    const check = await openPglite(dataDir);
    const [row] = await check.query<{ role: string }>("select role from users where subject = 'carol'");
    await check.close();
    return row?.role;
  };

  const promoted = await books(['users', 'promote', 'Carol@Example.com'], env);
  assert.equal(promoted.code, 0, promoted.stderr);
  assert.match(promoted.stdout, /carol@example\.com is now ROLE_ADMIN/i);
  assert.equal(await roleOfCarol(), 'ROLE_ADMIN');

  const demoted = await books(['users', 'demote', 'carol@example.com'], env);
  assert.equal(demoted.code, 0, demoted.stderr);
  assert.equal(await roleOfCarol(), 'ROLE_USER');

  const unknown = await books(['users', 'promote', 'nobody@example.com'], env);
  assert.equal(unknown.code, 1);
  assert.match(unknown.stderr, /no user with email nobody@example\.com; the user must log in once first/);
});

test('books users with bad arguments explains the usage', async () => {
  for (const args of [
    ['users'],
    ['users', 'elevate', 'a@b.c'],
    ['users', 'promote'],
    ['users', 'promote', 'not-an-email'],
  ]) {
    const result = await books(args, { DATABASE_URL: `pglite:${dataDir}` });
    assert.equal(result.code, 2, args.join(' '));
    assert.match(result.stderr, /^books: .+ \(see books --help\)\n$/);
  }
});

test('the quickstart serves the service and the development provider: login works out of the box, and at the default level no line is logged per request', async () => {
  const [port, idpPort] = [await freePort(), await freePort()];
  // The default LOG_LEVEL, as `npm start` runs it; a new database, as a first run meets it.
  const quickstart = spawnManaged('env', [
    '-u',
    'LOG_LEVEL',
    `PORT=${port}`,
    `OIDC_DEV_ISSUER=http://127.0.0.1:${idpPort}`,
    'DATABASE_URL=pglite:memory',
    tsx,
    join(packageRoot, 'dev', 'quickstart.ts'),
  ]);
  try {
    await waitForPort(port, '127.0.0.1', 60_000);
    const app = `http://127.0.0.1:${port}`;
    const browser = new CookieBrowser();
    assert.equal((await browser.request(await signInThroughService(browser, app, 'admin'))).status, 302);
    const me = await browser.request(`${app}/me`, { headers: { accept: 'application/json' } });
    assert.equal(me.status, 200);
    assert.equal(
      ((await me.json()) as { role: string }).role,
      'ROLE_ADMIN',
      'admin@example.com is a quickstart admin',
    );
    assert.match(quickstart.output(), /development identity provider at http:\/\/127\.0\.0\.1:\d+/);
    // No SMTP_URL: notices go to the development mailbox, which the quickstart names and serves.
    assert.match(
      quickstart.output(),
      /notices go to the development mailbox at http:\/\/127\.0\.0\.1:\d+\/web\/dev\/mailbox/,
    );
    const mailbox = await browser.request(`${app}/web/dev/mailbox`, { headers: { accept: 'text/html' } });
    assert.equal(mailbox.status, 200);
    assert.match(await mailbox.text(), /<h1>Development mailbox<\/h1>/);
  } finally {
    await quickstart.stop();
  }
  // Read once it has stopped, so every line it wrote is in: info lines are there, request lines are not.
  assert.match(quickstart.output(), /Server listening at http:\/\/127\.0\.0\.1:\d+/);
  assert.doesNotMatch(
    quickstart.output(),
    /incoming request|request completed/,
    'request lines are at debug',
  );
});
