// `npm start` (scripts/start.mjs): every system on its own port setting, one ready table, and the
// one-line error style for a bad setting or a taken port.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { assertOneLineError, freePort, occupyPort, runCommand, spawnManaged } from '@platform/testkit';

const root = fileURLToPath(new URL('..', import.meta.url));
const start = join(root, 'scripts', 'start.mjs');
const SETTINGS = [
  'RATELIMIT_PORT',
  'RATELIMIT_GRPC_PORT',
  'RATELIMIT_DEBUG_PORT',
  'ENDPOINTS_PORT',
  'BOOKS_PORT',
  'BOOKS_IDP_PORT',
] as const;

async function freePorts(): Promise<Record<(typeof SETTINGS)[number], string>> {
  const entries = await Promise.all(SETTINGS.map(async (name) => [name, String(await freePort())] as const));
  return Object.fromEntries(entries) as Record<(typeof SETTINGS)[number], string>;
}

describe('npm start', () => {
  test('starts every system on its own port, PORT is not passed on, then prints one ready table', async () => {
    const ports = await freePorts();
    const stray = await freePort();
    const child = spawnManaged('env', [
      ...Object.entries(ports).map(([name, port]) => `${name}=${port}`),
      `PORT=${stray}`,
      'DATABASE_URL=pglite:memory',
      process.execPath,
      start,
    ]);
    try {
      const deadline = Date.now() + 240_000;
      while (!child.output().includes('ready (Ctrl-C stops all):') && Date.now() < deadline) {
        assert.doesNotMatch(child.output(), /exited \(/, child.output());
        await delay(250);
      }
      const output = child.output();
      assert.match(output, new RegExp(`PORT=${stray} is not passed on`));
      const table = output.slice(output.indexOf('ready (Ctrl-C stops all):'));
      assert.equal(table.match(/^ {2}(ratelimit|endpoints|books) /gm)?.length, 3, table);
      assert.match(table, new RegExp(`http://127\\.0\\.0\\.1:${ports.RATELIMIT_PORT} `));
      assert.match(table, new RegExp(`grpc 127\\.0\\.0\\.1:${ports.RATELIMIT_GRPC_PORT} `));
      assert.match(table, new RegExp(`http://127\\.0\\.0\\.1:${ports.ENDPOINTS_PORT} `));
      assert.match(table, new RegExp(`http://127\\.0\\.0\\.1:${ports.BOOKS_PORT} `));
      // What the table says to try answers.
      const decision = await fetch(`http://127.0.0.1:${ports.RATELIMIT_PORT}/json`, {
        method: 'POST',
        body: JSON.stringify({
          domain: 'basic',
          descriptors: [{ entries: [{ key: 'one_per_minute', value: 'me' }] }],
        }),
      });
      assert.equal(((await decision.json()) as { overallCode: string }).overallCode, 'OK');
      assert.equal(await (await fetch(`http://127.0.0.1:${ports.ENDPOINTS_PORT}/foo`)).json(), 'Foo handler');
      assert.equal((await fetch(`http://127.0.0.1:${ports.BOOKS_PORT}/login`)).status, 200);
      // The ratelimit quickstart listens on loopback only, and nothing took the stray PORT.
      assert.match(output, /\[ratelimit\] .*ratelimit service started/);
      const strayTaken = await fetch(`http://127.0.0.1:${stray}/`).then(
        () => true,
        () => false,
      );
      assert.equal(strayTaken, false);
    } finally {
      await child.stop();
    }
  });

  test('a port setting that is not a port, two settings on one port, a taken port: one line, exit 1', async () => {
    const run = (env: NodeJS.ProcessEnv) => runCommand(process.execPath, [start], { env, cwd: root });
    assertOneLineError(
      await run({ BOOKS_PORT: 'http' }),
      1,
      /^npm start: invalid BOOKS_PORT 'http': expected a port from 1 to 65535$/,
    );
    const ports = await freePorts();
    assertOneLineError(
      await run({ ...ports, ENDPOINTS_PORT: ports.BOOKS_PORT }),
      1,
      /^npm start: ENDPOINTS_PORT and BOOKS_PORT are both \d+; give each its own port$/,
    );
    const busy = await occupyPort();
    try {
      assertOneLineError(
        await run({ ...ports, RATELIMIT_GRPC_PORT: String(busy.port) }),
        1,
        new RegExp(
          `^npm start: port 127\\.0\\.0\\.1:${busy.port} \\(RATELIMIT_GRPC_PORT\\) is in use; set RATELIMIT_GRPC_PORT to a free port$`,
        ),
      );
    } finally {
      await busy.release();
    }
  });
});
