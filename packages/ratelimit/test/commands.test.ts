// The three commands as a user meets them: through the bin launchers that `npx` runs.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertOneLineError, occupyPort, runCommand } from '@platform/testkit';

const launcher = (name: string) => fileURLToPath(new URL(`../bin/${name}.mjs`, import.meta.url));
const run = (name: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(process.execPath, [launcher(name), ...args], { env });

const scratch = await mkdtemp(join(tmpdir(), 'ratelimit-commands-'));
after(() => rm(scratch, { recursive: true, force: true }));
await mkdir(join(scratch, 'runtime', 'ratelimit', 'config'), { recursive: true });

/** A server that would start cleanly: memory store, no stats, every port picked by the kernel. */
const SERVER_ENV = {
  BACKEND_TYPE: 'memory',
  USE_STATSD: 'false',
  DISABLE_STATS: 'true',
  RUNTIME_ROOT: join(scratch, 'runtime'),
  RUNTIME_SUBDIRECTORY: 'ratelimit',
  HOST: '127.0.0.1',
  GRPC_HOST: '127.0.0.1',
  DEBUG_HOST: '127.0.0.1',
  PORT: '0',
  GRPC_PORT: '0',
  DEBUG_PORT: '0',
  LOG_LEVEL: 'warn',
};

describe('help and arguments', () => {
  for (const name of ['ratelimit', 'ratelimit-client', 'ratelimit-config-check']) {
    test(`${name} -h and --help print the usage to stdout and exit 0`, async () => {
      for (const flag of ['-h', '--help']) {
        const result = await run(name, [flag]);
        assert.equal(result.code, 0, result.stderr);
        assert.match(result.stdout, new RegExp(`^Usage(:| of) ${name}`));
        assert.equal(result.stderr, '');
      }
    });

    test(`${name}: an unknown flag is one line pointing at --help, exit 2`, async () => {
      assertOneLineError(
        await run(name, ['-bogus']),
        2,
        new RegExp(`^${name}: .*-bogus.* \\(see ${name} --help\\)$`),
      );
    });
  }

  test('ratelimit takes no arguments: a stray one is a usage error, not a server on 0.0.0.0', async () => {
    assertOneLineError(
      await run('ratelimit', ['serve']),
      2,
      /^ratelimit: unexpected argument 'serve': settings come from the environment .*\(see ratelimit --help\)$/,
    );
  });

  test('ratelimit-config-check without -config_dir says the flag is required, exit 2', async () => {
    assertOneLineError(
      await run('ratelimit-config-check', []),
      2,
      /^ratelimit-config-check: -config_dir is required/,
    );
  });

  test('ratelimit-config-check with a missing directory names it, exit 1', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'config-check-'));
    await rm(dir, { recursive: true });
    assertOneLineError(
      await run('ratelimit-config-check', ['-config_dir', dir]),
      1,
      new RegExp(
        `^ratelimit-config-check: cannot read config directory '${dir}': no such directory; set -config_dir`,
      ),
    );
  });
});

describe('startup errors: one line naming the value, the problem and the setting', () => {
  for (const [listener, setting] of [
    ['HTTP', 'PORT'],
    ['gRPC', 'GRPC_PORT'],
    ['debug', 'DEBUG_PORT'],
  ] as const) {
    test(`${listener} port in use`, async () => {
      const busy = await occupyPort();
      try {
        const result = await run('ratelimit', [], { ...SERVER_ENV, [setting]: String(busy.port) });
        assertOneLineError(
          result,
          1,
          new RegExp(
            `^ratelimit: cannot listen on 127\\.0\\.0\\.1:${busy.port} \\(${listener}\\): address already in use; set ${setting} to a free port`,
          ),
        );
      } finally {
        await busy.release();
      }
    });
  }

  test('two listeners given one port', async () => {
    const result = await run('ratelimit', [], { ...SERVER_ENV, PORT: '18931', DEBUG_PORT: '18931' });
    assertOneLineError(
      result,
      1,
      /^ratelimit: cannot listen on 127\.0\.0\.1:18931: PORT and DEBUG_PORT are both 18931/,
    );
  });

  test('a host that is not an address of this machine', async () => {
    for (const [setting, listener] of [
      ['HOST', 'HTTP'],
      ['GRPC_HOST', 'gRPC'],
    ]) {
      const result = await run('ratelimit', [], { ...SERVER_ENV, [setting as string]: '192.0.2.1' });
      assertOneLineError(
        result,
        1,
        new RegExp(
          `^ratelimit: cannot listen on 192\\.0\\.2\\.1 \\(${listener}\\): address not available on this machine; set ${setting}`,
        ),
      );
    }
  });

  test('a bad setting', async () => {
    const result = await run('ratelimit', [], { ...SERVER_ENV, BACKEND_TYPE: 'cassandra' });
    assertOneLineError(result, 1, /^ratelimit: invalid setting BACKEND_TYPE: 'cassandra' is not one of /);
  });

  test('LOG_LEVEL=debug adds the stack', async () => {
    const busy = await occupyPort();
    try {
      const result = await run('ratelimit', [], {
        ...SERVER_ENV,
        PORT: String(busy.port),
        LOG_LEVEL: 'debug',
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /^ratelimit: cannot listen on .*\n(.*\n)*\s+at /m);
    } finally {
      await busy.release();
    }
  });
});

describe('the config directory at startup: one line, or a warning where the reference starts anyway', () => {
  // A server that wrongly starts would run until runCommand's timeout kills it: bounded, never a hang.
  const runServer = (env: NodeJS.ProcessEnv) =>
    runCommand(process.execPath, [launcher('ratelimit')], {
      env: { ...SERVER_ENV, ...env },
      timeoutMs: 60_000,
    });

  test('a file where RUNTIME_SUBDIRECTORY should be a directory (unreadable even as root)', {
    timeout: 120_000,
  }, async () => {
    const root = join(scratch, 'file-as-directory');
    await mkdir(root);
    await writeFile(join(root, 'ratelimit'), 'not a directory');
    for (const watchRoot of ['true', 'false']) {
      assertOneLineError(
        await runServer({ RUNTIME_ROOT: root, RUNTIME_WATCH_ROOT: watchRoot }),
        1,
        new RegExp(
          `^ratelimit: cannot read config directory '${root}/ratelimit/config': '${root}/ratelimit' \\(RUNTIME_SUBDIRECTORY\\): not a directory; set RUNTIME_SUBDIRECTORY so that RUNTIME_ROOT/RUNTIME_SUBDIRECTORY/RUNTIME_APPDIRECTORY is a readable directory`,
        ),
      );
    }
  });

  test('a missing directory with RUNTIME_WATCH_ROOT=false (the reference cannot watch it and stops)', {
    timeout: 120_000,
  }, async () => {
    const root = join(scratch, 'no-such-root');
    assertOneLineError(
      await runServer({ RUNTIME_ROOT: root, RUNTIME_WATCH_ROOT: 'false' }),
      1,
      new RegExp(
        `^ratelimit: cannot read config directory '${root}/ratelimit/config': '${root}' \\(RUNTIME_ROOT\\): no such directory; set RUNTIME_ROOT so that`,
      ),
    );
  });

  test('RUNTIME_WATCH_ROOT=true: the directory holding RUNTIME_ROOT must exist, it is watched', {
    timeout: 120_000,
  }, async () => {
    const root = join(scratch, 'no-such-parent', 'current');
    assertOneLineError(
      await runServer({ RUNTIME_ROOT: root }),
      1,
      new RegExp(
        `^ratelimit: cannot watch '${scratch}/no-such-parent', the directory holding RUNTIME_ROOT '${root}': no such directory; set RUNTIME_ROOT to a path in an existing directory$`,
      ),
    );
  });

  test('RUNTIME_WATCH_ROOT=true and a missing RUNTIME_ROOT: a one-line warning, and the server runs', {
    timeout: 120_000,
  }, async () => {
    const root = join(scratch, 'not-yet-swapped-in');
    const child = spawn(process.execPath, [launcher('ratelimit')], {
      env: { ...process.env, ...SERVER_ENV, RUNTIME_ROOT: root, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    const exited = once(child, 'exit');
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    try {
      const deadline = Date.now() + 90_000;
      while (!stderr.includes('ratelimit service started')) {
        assert.equal(child.exitCode, null, `the server exited; stderr:\n${stderr}`);
        assert.ok(Date.now() < deadline, `the server did not start; stderr:\n${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      // stderr is a pipe here, so the lines are JSON without LOG_FORMAT (text only on a terminal).
      const lines = stderr
        .split('\n')
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      const warnings = lines.filter((line) => line.level === 'warning');
      assert.equal(warnings.length, 1, stderr);
      assert.match(
        String(warnings[0]?.['@message']),
        new RegExp(
          `config directory '${root}/ratelimit/config' does not exist \\(no RUNTIME_ROOT '${root}'\\): no rate limits apply until RUNTIME_ROOT is replaced`,
        ),
      );
      assert.doesNotMatch(stderr, /^\s+at /m);
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
  });
});
