// scripts/run-tests.mjs: the closing block names every skipped suite and test, with the reason.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@platform/testkit';

const root = fileURLToPath(new URL('..', import.meta.url));

test('npm test ends with the slowest files, the wall time, and a block that counts and names every skipped suite and test', async () => {
  const result = await runCommand(
    process.execPath,
    [join(root, 'scripts', 'run-tests.mjs'), 'test/fixtures/skipping'],
    { cwd: root, env: { DATABASE_URL: 'postgres://unused@127.0.0.1:1/unused' } },
  );
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(
    result.stdout,
    /\n== slowest 1 of 1 test files \(wall time of each file's process\)\n {2}\d+\.\d s {2}test\/fixtures\/skipping\/test\/skips\.test\.ts\n== wall time: \d+\.\d s for 1 test files\n/,
  );
  const block = result.stdout.slice(result.stdout.indexOf('\n== skipped:'));
  assert.equal(
    block,
    [
      '',
      '== skipped: 1 suite (their tests did not run) and 2 tests',
      '  why: the service is not installed',
      '    suite test/fixtures/skipping/test/skips.test.ts: a suite that needs a service',
      '    test test/fixtures/skipping/test/skips.test.ts: a test skipped up front',
      '  why: no browser',
      '    test test/fixtures/skipping/test/skips.test.ts: a test that skips itself',
      '',
    ].join('\n'),
  );
});
