import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { credentials, Metadata, type ServiceError } from '@grpc/grpc-js';
import { freePort, redisCli, serviceSkip, startRedis } from '@platform/testkit';
import { SettingsError } from '../src/errors.js';
import { loadProtos } from '../src/protocol/proto.js';
import { readSettings } from '../src/settings.js';
import { freePorts, loopbackEnv } from './helpers/child-server.js';

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const bin = join(packageDir, 'bin', 'ratelimit.ts');
const LIMIT = 100_000;

interface Launched {
  readonly child: ChildProcess;
  stderr(): string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

function launch(env: Record<string, string>): Launched {
  const child = spawn(process.execPath, ['--import', 'tsx', bin], {
    cwd: packageDir,
    env: { ...process.env, USE_STATSD: 'false', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, stderr: () => stderr, exited };
}

async function waitFor(what: string, condition: () => boolean, timeoutMs: number, output: () => string) {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; stderr:\n${output()}`);
    await delay(50);
  }
}

test('RATELIMIT_WORKERS defaults to 1 and must be a whole number from 1 to 256', () => {
  assert.equal(readSettings({ BACKEND_TYPE: 'memory' }).workers, 1);
  assert.equal(readSettings({ BACKEND_TYPE: 'redis', RATELIMIT_WORKERS: '4' }).workers, 4);
  for (const bad of ['0', '-1', 'two', '1.5', '257']) {
    assert.throws(
      () => readSettings({ BACKEND_TYPE: 'redis', RATELIMIT_WORKERS: bad }),
      (error: unknown) => error instanceof SettingsError && error.setting === 'RATELIMIT_WORKERS',
      bad,
    );
  }
});

test('RATELIMIT_WORKERS > 1 with the memory backend is refused: its counters are per process', () => {
  assert.throws(
    () => readSettings({ BACKEND_TYPE: 'memory', RATELIMIT_WORKERS: '2' }),
    /^SettingsError: RATELIMIT_WORKERS: 2 workers need a shared store: the memory backend keeps its counters per process/,
  );
});

test('the server command refuses a memory-backend cluster with a clear message and exit 1', async () => {
  const run = launch({ BACKEND_TYPE: 'memory', RATELIMIT_WORKERS: '3' });
  const [code] = await run.exited;
  assert.equal(code, 1);
  assert.match(
    run.stderr(),
    /^ratelimit: invalid setting RATELIMIT_WORKERS: 3 workers need a shared store: .* Use BACKEND_TYPE=redis or memcache, or RATELIMIT_WORKERS=1\n$/,
  );
});

test('a worker that cannot start stops the whole cluster with exit 1', { timeout: 60_000 }, async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  const busyPort = (taken.address() as AddressInfo).port;
  try {
    const run = launch({
      BACKEND_TYPE: 'redis',
      REDIS_URL: `127.0.0.1:${await freePort()}`,
      RATELIMIT_WORKERS: '2',
      HOST: '127.0.0.1',
      PORT: String(busyPort),
      GRPC_HOST: '127.0.0.1',
      GRPC_PORT: String(await freePort()),
      DEBUG_HOST: '127.0.0.1',
      DEBUG_PORT: String(await freePort()),
      RUNTIME_ROOT: '/nonexistent-ratelimit-root',
    });
    const [code] = await run.exited;
    assert.equal(code, 1);
    assert.match(
      run.stderr(),
      /ratelimit: cannot listen on .*: address already in use; set PORT to a free port/,
    );
    assert.match(run.stderr(), /exited with code 1 during startup; stopping the cluster/);
  } finally {
    taken.close();
  }
});

type Unary = (
  request: unknown,
  metadata: Metadata,
  callback: (error: ServiceError | null, response: { statuses: Array<{ limitRemaining: number }> }) => void,
) => void;

test('2 workers on the same ports keep exact counts under concurrency against Redis', {
  skip: serviceSkip('redis-server', 'redis-server'),
  timeout: 120_000,
}, async () => {
  const redis = await startRedis();
  const root = await mkdtemp(join(tmpdir(), 'ratelimit-cluster-'));
  await mkdir(join(root, 'ratelimit', 'config'), { recursive: true });
  await writeFile(
    join(root, 'ratelimit', 'config', 'cluster.yaml'),
    `domain: cluster\ndescriptors:\n  - key: exact\n    rate_limit: {unit: hour, requests_per_unit: ${LIMIT}}\n`,
  );
  const ports = await freePorts();
  const run = launch({
    ...loopbackEnv(root, ports),
    // The test reads the workers' totals from /stats.
    DISABLE_STATS: 'false',
    BACKEND_TYPE: 'redis',
    REDIS_URL: redis.address,
    RATELIMIT_WORKERS: '2',
    RUNTIME_SUBDIRECTORY: 'ratelimit',
    RUNTIME_WATCH_ROOT: 'false',
    LOG_LEVEL: 'info',
  });
  const protos = loadProtos();
  // A local subchannel pool per client: each client gets its own connection, so the
  // cluster hands the connections to both workers.
  const clients = Array.from(
    { length: 8 },
    () =>
      new protos.rateLimitService(`127.0.0.1:${ports.grpc}`, credentials.createInsecure(), {
        'grpc.use_local_subchannel_pool': 1,
      }),
  );
  try {
    await waitFor(
      '2 workers',
      () => run.stderr().split('ratelimit service started').length === 3,
      60_000,
      run.stderr,
    );
    assert.match(run.stderr(), /"@message":"starting 2 workers"/);

    const request = { domain: 'cluster', descriptors: [{ entries: [{ key: 'exact', value: 'x' }] }] };
    const grpcCalls = clients.flatMap((client) =>
      Array.from(
        { length: 25 },
        () =>
          new Promise<number>((resolve, reject) => {
            const call = (client as unknown as Record<string, Unary>).ShouldRateLimit as Unary;
            call.call(client, request, new Metadata(), (error, response) =>
              error ? reject(error) : resolve(response.statuses[0]?.limitRemaining ?? -1),
            );
          }),
      ),
    );
    const httpCalls = Array.from({ length: 200 }, async () => {
      const response = await fetch(`http://127.0.0.1:${ports.http}/json`, {
        method: 'POST',
        body: JSON.stringify(request),
      });
      assert.equal(response.status, 200);
      const body = (await response.json()) as { statuses: Array<{ limitRemaining: number }> };
      return body.statuses[0]?.limitRemaining ?? -1;
    });
    const remaining = await Promise.all([...grpcCalls, ...httpCalls]);

    // Every hit saw its own count: 400 distinct remainders, LIMIT-1 down to LIMIT-400.
    const expected = Array.from({ length: 400 }, (_, i) => LIMIT - 400 + i);
    assert.deepEqual(
      remaining.sort((a, b) => a - b),
      expected,
    );
    const keys = (await redisCli(redis.port, ['--scan', '--pattern', 'cluster_exact_x_*'])).split('\n');
    assert.equal(keys.length, 1);
    assert.equal(await redisCli(redis.port, ['GET', keys[0] as string]), '400');

    // Both workers served gRPC calls: their per-process counters add up to the 200 calls.
    const perWorker = new Set<number>();
    for (let i = 0; i < 20; i++) {
      const stats = await (
        await fetch(`http://127.0.0.1:${ports.debug}/stats`, { headers: { connection: 'close' } })
      ).text();
      const match = /^ratelimit_server\.ShouldRateLimit\.total_requests: (\d+)$/m.exec(stats);
      perWorker.add(Number(match?.[1] ?? 0));
    }
    const counts = [...perWorker];
    const total = counts.length === 1 ? 2 * (counts[0] as number) : counts.reduce((a, b) => a + b, 0);
    assert.ok(counts.length <= 2 && counts.every((count) => count > 0), `per-worker counts ${counts}`);
    assert.equal(total, 200);

    run.child.kill('SIGTERM');
    const [code] = await run.exited;
    assert.equal(code, 0);
  } finally {
    for (const client of clients) client.close();
    if (run.child.exitCode === null) {
      run.child.kill('SIGKILL');
      await run.exited;
    }
    await redis.stop();
    await rm(root, { recursive: true, force: true });
  }
});
