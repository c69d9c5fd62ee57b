// The three commands as a user meets them: through the bin launchers that `npx` runs.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertOneLineError, occupyPort, runCommand } from '@platform/testkit';

const launcher = (name: string) => fileURLToPath(new URL(`../bin/${name}.mjs`, import.meta.url));
const run = (name: string, args: string[], env: NodeJS.ProcessEnv = {}) =>
  runCommand(process.execPath, [launcher(name), ...args], { env });

/** A server that would start cleanly: memory store, no stats, every port picked by the kernel. */
const SERVER_ENV = {
  BACKEND_TYPE: 'memory',
  USE_STATSD: 'false',
  DISABLE_STATS: 'true',
  RUNTIME_ROOT: '/nonexistent-ratelimit-root',
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
