// The `books` command and the quickstart as a user meets them: help, usage errors and one-line
// startup errors, through the bin launcher that `npx books` runs.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { assertOneLineError, occupyPort, runCommand } from '@platform/testkit';
import { packageRoot } from '../src/paths.js';
import { booksLauncher, tsx } from './support/books-command.js';
import { migratedDataDir } from './support/pglite-template.js';

// One migrated data directory for every command that opens the database before it fails (a new one would
// cost each an initdb of 8-16 s); removed after the run. The commands run one after the other.
const scratch = await mkdtemp(join(tmpdir(), 'books-commands-'));
after(() => rm(scratch, { recursive: true, force: true }));
const DATABASE = { DATABASE_URL: `pglite:${await migratedDataDir(scratch)}`, LOG_LEVEL: 'warn' };
const books = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(process.execPath, [booksLauncher, ...args], { cwd: packageRoot, env: { ...DATABASE, ...env } });

describe('help and arguments', () => {
  test('-h and --help print the usage to stdout and exit 0', async () => {
    for (const args of [['-h'], ['--help'], ['users', '--help']]) {
      const result = await books(args);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^usage: books /);
      assert.equal(result.stderr, '');
    }
  });

  test('usage errors: one line pointing at --help, exit 2', async () => {
    assertOneLineError(
      await books(['--port=1']),
      2,
      /^books: unknown option '--port=1' \(see books --help\)$/,
    );
    assertOneLineError(await books(['serve', 'x']), 2, /^books: unexpected argument 'x': serve takes none/);
  });
});

describe('startup errors: one line naming the value, the problem and the setting, exit 1', () => {
  test('port in use, for the service and for the quickstart', async () => {
    const busy = await occupyPort();
    try {
      const expected = new RegExp(
        `^books: cannot listen on 127\\.0\\.0\\.1:${busy.port}: address already in use; set PORT to a free port`,
      );
      assertOneLineError(await books([], { PORT: String(busy.port) }), 1, expected);
      const quickstart = await runCommand(tsx, ['dev/quickstart.ts'], {
        cwd: packageRoot,
        env: { ...DATABASE, PORT: String(busy.port), OIDC_DEV_ISSUER: 'http://127.0.0.1:0' },
      });
      assertOneLineError(quickstart, 1, expected);
    } finally {
      await busy.release();
    }
  });

  test('the development identity provider: port in use', async () => {
    const busy = await occupyPort();
    try {
      const quickstart = await runCommand(tsx, ['dev/quickstart.ts'], {
        cwd: packageRoot,
        env: { ...DATABASE, PORT: '0', OIDC_DEV_ISSUER: `http://127.0.0.1:${busy.port}` },
      });
      assertOneLineError(
        quickstart,
        1,
        new RegExp(
          `^books: the development identity provider cannot listen on 127\\.0\\.0\\.1:${busy.port}: .*address already in use.*; set OIDC_DEV_ISSUER`,
        ),
      );
    } finally {
      await busy.release();
    }
  });

  test('a host that is not an address of this machine', async () => {
    assertOneLineError(
      await books([], { HOST: '192.0.2.1', PORT: '0' }),
      1,
      /^books: cannot listen on 192\.0\.2\.1:0: address not available on this machine; set HOST/,
    );
  });

  test('a bad setting', async () => {
    assertOneLineError(
      await books([], { PORT: 'eighty' }),
      1,
      /^books: invalid PORT 'eighty': expected an integer/,
    );
  });

  test('PostgreSQL not answering', async () => {
    const closed = await occupyPort();
    await closed.release();
    assertOneLineError(
      await books(['migrate'], { DATABASE_URL: `postgres://postgres@127.0.0.1:${closed.port}/books` }),
      1,
      new RegExp(
        `^books: cannot reach PostgreSQL at 127\\.0\\.0\\.1:${closed.port}: connection refused; start it, or set DATABASE_URL`,
      ),
    );
  });

  test('LOG_LEVEL=debug adds the stack', async () => {
    const busy = await occupyPort();
    try {
      const result = await books([], { PORT: String(busy.port), LOG_LEVEL: 'debug' });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^books: cannot listen on .*\n(.*\n)*\s+at /m);
    } finally {
      await busy.release();
    }
  });
});
