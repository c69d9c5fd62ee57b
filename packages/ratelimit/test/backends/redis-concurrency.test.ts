import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type ManagedProcess, serviceSkip, spawnManaged, startRedis } from '@platform/testkit';
import { RateLimitClient } from '../../src/client/client.js';
import { freePorts, loopbackEnv } from '../helpers/child-server.js';
import { eventually } from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const bin = fileURLToPath(new URL('../../bin/ratelimit.ts', import.meta.url));

// Day-long refills and windows: nothing refills or slides while the test runs.
const CONFIG = `domain: conc
descriptors:
  - key: sliding
    rate_limit: {unit: day, requests_per_unit: 50, algorithm: sliding_window}
  - key: bucket
    rate_limit: {unit: day, requests_per_unit: 50, algorithm: token_bucket}
  - key: list
    rate_limits:
      - {unit: day, requests_per_unit: 60, algorithm: token_bucket, burst: 40}
      - {unit: day, requests_per_unit: 70, algorithm: sliding_window}
`;

/** One service process on its own free ports, serving `root`'s config through `redisAddress`. */
async function launch(
  root: string,
  redisAddress: string,
): Promise<{ process: ManagedProcess; client: RateLimitClient }> {
  const ports = await freePorts();
  const env = {
    BACKEND_TYPE: 'redis',
    REDIS_URL: redisAddress,
    RUNTIME_WATCH_ROOT: 'false',
    ...loopbackEnv(root, ports),
  };
  const assignments = Object.entries(env).map(([name, value]) => `${name}=${value}`);
  const child = spawnManaged('env', [...assignments, process.execPath, '--import', 'tsx', bin]);
  const client = new RateLimitClient(`127.0.0.1:${ports.grpc}`);
  try {
    // Two tsx start-ups on a loaded shared machine have taken over 30 s.
    await eventually(
      async () => (await client.check('ratelimit').catch(() => ({ status: '' }))).status === 'SERVING',
      120_000,
    );
  } catch (error) {
    // A server left running would keep this test file's process, and the whole run, alive.
    client.close();
    await child.stop();
    throw error;
  }
  return { process: child, client };
}

test('2 service processes on one Redis, 200 concurrent calls per limit: never more than the limit allowed', {
  skip,
  timeout: 300_000,
}, async () => {
  const redis = await startRedis();
  const root = await mkdtemp(join(tmpdir(), 'ratelimit-concurrency-'));
  await mkdir(join(root, 'config'), { recursive: true });
  await writeFile(join(root, 'config', 'conc.yaml'), CONFIG);
  const services: Awaited<ReturnType<typeof launch>>[] = [];
  try {
    // One at a time, so a failed second launch still stops the first in the finally.
    services.push(await launch(root, redis.address));
    services.push(await launch(root, redis.address));
    for (const [key, limit] of [
      ['sliding', 50],
      ['bucket', 50],
      ['list', 40],
    ] as const) {
      const calls = Array.from({ length: 200 }, (_, i) =>
        (services[i % 2] as (typeof services)[number]).client.shouldRateLimit({
          domain: 'conc',
          descriptors: [{ entries: [{ key, value: 'shared' }] }],
          hitsAddend: 1,
        }),
      );
      const answers = await Promise.all(calls);
      const allowed = answers.filter((answer) => answer.overallCode === 'OK').length;
      assert.ok(allowed <= limit, `${key}: ${allowed} allowed, limit ${limit}`);
      // Nothing refills during the test, and the scripts are atomic: exactly the limit gets through.
      assert.equal(allowed, limit, key);
    }
  } finally {
    for (const service of services) {
      service.client.close();
      await service.process.stop();
    }
    await redis.stop();
    await rm(root, { recursive: true, force: true });
  }
});
