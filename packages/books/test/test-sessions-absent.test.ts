import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { promisify } from 'node:util';
import { packageRoot } from '../src/paths.js';

const run = promisify(execFile);
const bin = (name: string) => join(packageRoot, '..', '..', 'node_modules', '.bin', name);
const outDir = await mkdtemp(join(tmpdir(), 'books-dist-'));
after(() => rm(outDir, { recursive: true, force: true }));

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

test('the production build (dist) contains no test-session helper', async () => {
  // --noCheck: the files the build emits are what is examined; `npm run typecheck` checks the types.
  await run(
    bin('tsc'),
    ['-p', 'tsconfig.build.json', '--outDir', outDir, '--sourceMap', 'false', '--noCheck'],
    {
      cwd: packageRoot,
    },
  );
  const files = await filesUnder(outDir);
  assert.ok(
    files.some((file) => file.endsWith(join('src', 'app', 'app.js'))),
    'the build produced the app',
  );
  assert.ok(
    files.some((file) => file.endsWith(join('bin', 'books.js'))),
    'the build produced the command',
  );
  assert.deepEqual(
    files.filter((file) => file.includes(`${join(outDir, 'test')}`)),
    [],
    'nothing under test/ is built',
  );
  for (const file of files) {
    const text = await readFile(file, 'utf8');
    assert.doesNotMatch(text, /createTestSession|test-sessions|urn:books:test-sessions/, file);
  }
});

test('the test-session helper refuses to run when NODE_ENV=production', async () => {
  const script = [
    "const { createTestSession } = await import('./test/support/test-sessions.ts');",
    'await createTestSession({}).then(',
    "  () => { console.log('created'); process.exit(0); },",
    '  (error) => { console.log(error.message); process.exit(3); });',
  ].join('\n');
  const result = await run(bin('tsx'), ['--input-type=module', '-e', script], {
    cwd: packageRoot,
    env: { ...process.env, NODE_ENV: 'production' },
  }).then(
    () => ({ code: 0, stdout: '' }),
    (error: { code: number; stdout: string }) => error,
  );
  assert.equal(result.code, 3);
  assert.match(result.stdout, /test-only and refuses to run when NODE_ENV=production/);
});
