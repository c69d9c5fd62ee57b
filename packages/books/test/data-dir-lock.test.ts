import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { spawnManaged } from '@platform/testkit';
import { DataDirInUseError, LOCK_FILE } from '../src/db/data-dir-lock.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { UsersRepository } from '../src/modules/users/users.repository.js';
import { books, booksLauncher } from './support/books-command.js';
import { migratedDataDir } from './support/pglite-template.js';

// Every directory here is a copy of the migrated test template (a new one would cost an initdb of 8-16 s
// at its first open); the locks are what is under test, not the cluster's creation.
const scratch = await mkdtemp(join(tmpdir(), 'books-lock-'));
after(() => rm(scratch, { recursive: true, force: true }));
const dataDir = await migratedDataDir(scratch);

test('a second open of a PGlite data directory in the same process is refused, and allowed after close', async () => {
  const dir = await migratedDataDir(scratch);
  try {
    const first = await openPglite(dir);
    await assert.rejects(openPglite(dir), (error: unknown) => {
      assert.ok(error instanceof DataDirInUseError);
      assert.equal(error.pid, process.pid);
      assert.match(error.message, new RegExp(`${dir}.*process ${process.pid}`));
      return true;
    });
    await first.close();
    const again = await openPglite(dir);
    await again.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('a lock left by a process that has exited is taken over', async () => {
  const dir = await migratedDataDir(scratch);
  try {
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    await writeFile(join(dir, LOCK_FILE), `${gone.pid}\n`);
    const db = await openPglite(dir);
    assert.equal((await readFile(join(dir, LOCK_FILE), 'utf8')).trim(), String(process.pid));
    await db.close();
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

const refusalLine = (dir: string, pid: number) =>
  new RegExp(`^books: the PGlite data directory ${dir} is in use by process ${pid};`);

test('books migrate, books users and books serve refuse with one line while another process holds the directory', async () => {
  const holder = await openPglite(dataDir);
  await migrate(holder);
  await new UsersRepository(holder, []).upsertFromLogin({
    issuer: 'http://idp.test',
    subject: 'dave',
    email: 'dave@example.com',
    emailVerified: true,
    name: 'Dave',
  });
  const env = { DATABASE_URL: `pglite:${dataDir}`, LOG_LEVEL: 'warn', PORT: '0' };
  try {
    for (const args of [['migrate'], ['users', 'promote', 'dave@example.com'], ['serve']]) {
      const result = await books(args, env);
      assert.equal(result.code, 1, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      const lines = result.stderr.trim().split('\n');
      assert.equal(lines.length, 1, result.stderr);
      assert.match(lines[0] ?? '', refusalLine(dataDir, process.pid));
      assert.doesNotMatch(result.stdout, /now ROLE_ADMIN|applied/, 'no change is reported');
    }
  } finally {
    await holder.close();
  }
  // Released, the directory takes the command, and its change sticks.
  const promoted = await books(['users', 'promote', 'dave@example.com'], env);
  assert.equal(promoted.code, 0, promoted.stderr);
  assert.match(promoted.stdout, /dave@example\.com is now ROLE_ADMIN/);
  const check = await openPglite(dataDir);
  const [row] = await check.query<{ role: string }>("select role from users where subject = 'dave'");
  await check.close();
  assert.equal(row?.role, 'ROLE_ADMIN');
});

test('a running server holds its directory: a second server refuses, naming the pid of the first', async () => {
  const dir = await migratedDataDir(scratch);
  const server = spawnManaged('env', [
    `DATABASE_URL=pglite:${dir}`,
    'PORT=0',
    'LOG_LEVEL=warn',
    process.execPath,
    booksLauncher,
    'serve',
  ]);
  try {
    // The lock is taken when the database opens, before the server listens: wait for it (bounded).
    let holder: number | undefined;
    const deadline = Date.now() + 180_000;
    while (holder === undefined && Date.now() < deadline) {
      const text = await readFile(join(dir, LOCK_FILE), 'utf8').catch(() => '');
      if (text.endsWith('\n')) holder = Number(text.trim());
      else await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.ok(holder !== undefined, `the server never locked ${dir}: ${server.output()}`);
    const second = await books(['serve'], { DATABASE_URL: `pglite:${dir}`, PORT: '0' });
    assert.equal(second.code, 1, second.stderr);
    assert.equal(second.stderr.trim().split('\n').length, 1, second.stderr);
    assert.match(second.stderr, refusalLine(dir, holder));
  } finally {
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
