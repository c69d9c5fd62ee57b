// The first hour of a new user: a fresh clone, `npm ci` alone, then every command of every README.
// Slow (a full install, about a minute), and part of every run, CI included.
import assert from 'node:assert/strict';
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@platform/testkit';

const root = fileURLToPath(new URL('..', import.meta.url));
const scratch = mkdtempSync(join(tmpdir(), 'fresh-clone-'));
const clone = join(scratch, 'platform');
const INSTALL_TIMEOUT_MS = 15 * 60_000;

/** Build output, installed modules and local data: what a clone never has. */
const NOT_IN_A_CLONE = new Set(['node_modules', 'dist', '.tmp', 'data', '.git']);

describe('a fresh clone after `npm ci` alone', { timeout: INSTALL_TIMEOUT_MS + 5 * 60_000 }, () => {
  let install: Awaited<ReturnType<typeof runCommand>>;

  before(async () => {
    if (existsSync(join(root, '.git'))) {
      const cloned = await runCommand('git', ['clone', '--quiet', '--no-hardlinks', root, clone]);
      assert.equal(cloned.code, 0, cloned.stderr);
    } else {
      // A source tree without git (an exported archive): copy what a clone would hold.
      cpSync(root, clone, {
        recursive: true,
        filter: (path) =>
          !relative(root, path)
            .split('/')
            .some((part) => NOT_IN_A_CLONE.has(part)),
      });
    }
    install = await runCommand('npm', ['ci', '--no-audit', '--no-fund', '--prefer-offline'], {
      cwd: clone,
      timeoutMs: INSTALL_TIMEOUT_MS,
    });
  });
  after(() => rmSync(scratch, { recursive: true, force: true }));

  test('npm ci succeeds without engine warnings on this Node version', () => {
    assert.equal(install.code, 0, install.stderr);
    assert.doesNotMatch(install.stderr, /EBADENGINE/, install.stderr);
    assert.equal(existsSync(join(clone, 'packages', 'ratelimit', 'dist')), false, 'nothing was built');
  });

  for (const command of ['ratelimit', 'ratelimit-client', 'ratelimit-config-check', 'endpoints', 'books']) {
    test(`npx ${command} --help runs our command`, async () => {
      const result = await runCommand('npx', ['--no-install', command, '--help'], { cwd: clone });
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, new RegExp(`^(Usage(:| of) ${command}|usage: ${command})[ :]`, 'i'));
    });
  }

  test('the README commands that need no server work too', async () => {
    const check = await runCommand(
      'npx',
      [
        '--no-install',
        'ratelimit-config-check',
        '-config_dir',
        'packages/ratelimit/examples/runtime/ratelimit/config',
      ],
      { cwd: clone },
    );
    assert.equal(check.code, 0, check.stdout + check.stderr);
    assert.match(check.stdout, /all rate limit configs ok/);
    const routes = await runCommand(
      'npx',
      ['--no-install', 'endpoints', 'routes', '--prefix', 'packages/endpoints/examples/controllers'],
      {
        cwd: clone,
      },
    );
    assert.equal(routes.code, 0, routes.stderr);
    assert.match(routes.stdout, /\/foo/);
    // The README's `import { createApp } from '@platform/endpoints'`: npm ci built the library.
    const imported = await runCommand(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "const m = await import('@platform/endpoints'); console.log(typeof m.createApp)",
      ],
      { cwd: clone },
    );
    assert.equal(imported.stdout.trim(), 'function', imported.stderr);
  });
});
