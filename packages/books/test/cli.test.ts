import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { packageRoot } from '../src/paths.js';

const run = promisify(execFile);
const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
const dataDir = await mkdtemp(join(tmpdir(), 'books-migrate-'));
after(() => rm(dataDir, { recursive: true, force: true }));

function books(args: string[], env: NodeJS.ProcessEnv = {}) {
  return run(tsx, ['bin/books.ts', ...args], { cwd: packageRoot, env: { ...process.env, ...env } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

test('books migrate applies the migrations once, then reports the schema up to date', async () => {
  const env = { DATABASE_URL: `pglite:${dataDir}` };
  const first = await books(['migrate'], env);
  assert.equal(first.code, 0, first.stderr);
  assert.match(first.stdout, /applied 001_init\.sql, 002_book_count\.sql/);
  const second = await books(['migrate'], env);
  assert.match(second.stdout, /schema is up to date/);
});

test('bad configuration and unknown commands fail with a clear message and exit code', async () => {
  const badConfig = await books(['migrate'], { DATABASE_URL: 'mysql://x' });
  assert.equal(badConfig.code, 1);
  assert.match(badConfig.stderr, /books: invalid DATABASE_URL/);
  const unknown = await books(['frobnicate']);
  assert.equal(unknown.code, 2);
  assert.equal(unknown.stderr, "books: unknown command 'frobnicate' (see books --help)\n");
});
