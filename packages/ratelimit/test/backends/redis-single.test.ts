import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { type RedisProcess, redisCli, serviceSkip, startRedis } from '@platform/testkit';
import { createRedisStore, readRedisSettings } from '../../src/backends/redis/index.js';
import type { CounterStore } from '../../src/backends/store.js';
import { StoreError } from '../../src/errors.js';
import { assertTtl, eventually, hitOf, recordingDeps, uniquePrefix } from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const noStop = { stopIncrementWhenOverLimit: false };

describe('Redis store, single instance', { skip }, () => {
  let redis: RedisProcess;
  let store: CounterStore;
  // The largest jitter random(max) may give, so the TTL assertion is exact.
  const deps = { ...recordingDeps(), random: (max: number) => max - 1 };

  before(async () => {
    redis = await startRedis();
    store = createRedisStore(readRedisSettings({ REDIS_URL: redis.address }), deps, 300);
  });
  after(async () => {
    await store?.close();
    await redis?.stop();
  });

  test('INCRBY returns the counts after the addition, in request order', async () => {
    const p = uniquePrefix('order');
    assert.deepEqual(await store.hit([hitOf(`${p}a`, 2), hitOf(`${p}b`, 5)], noStop), [2, 5]);
    assert.deepEqual(await store.hit([hitOf(`${p}b`, 1), hitOf(`${p}a`, 3)], noStop), [6, 5]);
  });

  test('EXPIRE sets the window length plus the expiration jitter', async () => {
    const p = uniquePrefix('ttl');
    await store.hit([hitOf(`${p}minute`, 1, 10, 'MINUTE'), hitOf(`${p}hour`, 1, 10, 'HOUR')], noStop);
    assertTtl(await redisCli(redis.port, ['ttl', `${p}minute`]), 60 + 299);
    assertTtl(await redisCli(redis.port, ['ttl', `${p}hour`]), 3600 + 299);
  });

  test('an addend of 0 only reads the counter (INCRBY 0 still refreshes the TTL)', async () => {
    const p = uniquePrefix('check');
    await store.hit([hitOf(`${p}k`, 4)], noStop);
    assert.deepEqual(await store.hit([hitOf(`${p}k`, 0)], noStop), [4]);
    assert.deepEqual(await store.hit([hitOf(`${p}fresh`, 0)], noStop), [0]);
  });

  test('an empty request touches nothing', async () => {
    assert.deepEqual(await store.hit([], noStop), []);
  });

  test('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: once one key would pass its limit, only that key grows', async () => {
    const p = uniquePrefix('stop');
    const request = () => [hitOf(`${p}tight`, 1, 2), hitOf(`${p}loose`, 1, 10)];
    const seen: number[][] = [];
    for (let i = 0; i < 5; i++) seen.push(await store.hit(request(), { stopIncrementWhenOverLimit: true }));
    assert.deepEqual(seen, [
      [1, 1],
      [2, 2],
      [3, 2],
      [4, 2],
      [5, 2],
    ]);
  });

  test('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: the reference integration scenario (20/min and 10/hour, 15 calls)', async () => {
    const p = uniquePrefix('stop15');
    let last: number[] = [];
    for (let i = 0; i < 15; i++) {
      last = await store.hit([hitOf(`${p}key2`, 1, 20, 'MINUTE'), hitOf(`${p}key3`, 1, 10, 'HOUR')], {
        stopIncrementWhenOverLimit: true,
      });
    }
    // key2's remaining stays at 20 - 10 = 10 from the 11th call on.
    assert.equal(20 - (last[0] as number), 10);
    assert.equal(last[1], 15);
  });

  test('concurrent requests on one key never lose an increment', async () => {
    const p = uniquePrefix('concurrent');
    const results = await Promise.all(Array.from({ length: 200 }, () => store.hit([hitOf(`${p}k`)], noStop)));
    const values = results.map((r) => r[0]).sort((a, b) => (a as number) - (b as number));
    assert.deepEqual(
      values,
      Array.from({ length: 200 }, (_, i) => i + 1),
    );
  });
});

describe('Redis store: authentication', { skip }, () => {
  test('REDIS_AUTH with a password (requirepass)', async () => {
    const redis = await startRedis({ args: ['--requirepass', 's3cret'] });
    const good = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_AUTH: 's3cret' }),
      recordingDeps(),
      0,
    );
    const wrong = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_AUTH: 'nope' }),
      recordingDeps(),
      0,
    );
    try {
      assert.deepEqual(await good.hit([hitOf('pw', 3)], noStop), [3]);
      await assert.rejects(wrong.hit([hitOf('pw', 3)], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /WRONGPASS|NOAUTH|invalid password/i);
        return true;
      });
    } finally {
      await good.close();
      await wrong.close();
      await redis.stop();
    }
  });

  test('REDIS_AUTH with user:password (an ACL user)', async () => {
    const redis = await startRedis({ args: ['--user', 'alice', 'on', '>alicepw', '~*', '+@all'] });
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_AUTH: 'alice:alicepw' }),
      recordingDeps(),
      0,
    );
    try {
      assert.deepEqual(await store.hit([hitOf('acl', 2)], noStop), [2]);
      assert.equal(await redisCli(redis.port, ['--user', 'alice', '--pass', 'alicepw', 'get', 'acl']), '2');
    } finally {
      await store.close();
      await redis.stop();
    }
  });
});

describe('Redis store: unix socket', { skip }, () => {
  test('REDIS_SOCKET_TYPE=unix talks to the socket path in REDIS_URL', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'redis-unix-'));
    const socket = join(dir, 'ratelimit.sock');
    const redis = await startRedis({ args: ['--unixsocket', socket, '--unixsocketperm', '700'] });
    const store = createRedisStore(
      readRedisSettings({ REDIS_SOCKET_TYPE: 'unix', REDIS_URL: socket }),
      recordingDeps(),
      0,
    );
    try {
      assert.deepEqual(await store.hit([hitOf('unix', 7)], noStop), [7]);
      assert.equal(await redisCli(redis.port, ['get', 'unix']), '7');
    } finally {
      await store.close();
      await redis.stop();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Redis store: failure and recovery', { skip }, () => {
  test('Redis killed and restarted under load: every failed call gets a StoreError, then it recovers by itself', async () => {
    const first = await startRedis();
    const deps = recordingDeps();
    const health: boolean[] = [];
    const store = createRedisStore(
      readRedisSettings({
        REDIS_URL: first.address,
        REDIS_HEALTH_CHECK_ACTIVE_CONNECTION: 'true',
        REDIS_TIMEOUT: '2s',
      }),
      deps,
      0,
    );
    store.onHealthChange((healthy) => health.push(healthy));
    await eventually(() => store.isHealthy());
    let restarted: RedisProcess | undefined;
    const failures: unknown[] = [];
    let successes = 0;
    let running = true;
    const worker = async (id: number) => {
      while (running) {
        try {
          await store.hit([hitOf(`load_${id}`)], noStop);
          successes += 1;
        } catch (error) {
          failures.push(error);
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    };
    const workers = Array.from({ length: 8 }, (_, id) => worker(id));
    try {
      await eventually(() => successes > 200);
      await first.stop();
      await eventually(() => failures.length > 20);
      assert.equal(store.isHealthy(), false);
      restarted = await startRedis({ port: first.port });
      const before = successes;
      await eventually(() => successes > before + 200);
      assert.equal(store.isHealthy(), true);
    } finally {
      running = false;
      await Promise.all(workers);
      await store.close();
      await restarted?.stop();
    }
    assert.ok(failures.length > 0);
    for (const failure of failures) {
      assert.ok(failure instanceof StoreError, `not a StoreError: ${String(failure)}`);
      assert.equal(failure.code, 'RATELIMIT_STORE_FAILED');
      assert.match(
        failure.message,
        /ECONNREFUSED|ECONNRESET|EPIPE|socket has been ended by the other party|connection to redis at 127\.0\.0\.1:\d+ was closed/,
      );
    }
    assert.deepEqual(health.slice(0, 3), [true, false, true]);
  });

  test('a store created while Redis is down starts anyway and connects when Redis appears', async () => {
    const holder = await startRedis();
    const port = holder.port;
    await holder.stop();
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: `127.0.0.1:${port}`, REDIS_HEALTH_CHECK_ACTIVE_CONNECTION: 'true' }),
      recordingDeps(),
      0,
    );
    let redis: RedisProcess | undefined;
    try {
      assert.equal(store.isHealthy(), false);
      await assert.rejects(store.hit([hitOf('late')], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /ECONNREFUSED/);
        return true;
      });
      redis = await startRedis({ port });
      await eventually(() => store.isHealthy());
      assert.deepEqual(await store.hit([hitOf('late')], noStop), [1]);
    } finally {
      await store.close();
      await redis?.stop();
    }
  });
});
