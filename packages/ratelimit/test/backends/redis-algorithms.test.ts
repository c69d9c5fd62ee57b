import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type RedisProcess,
  redisCli,
  serviceSkip,
  startRedis,
  startRedisCluster,
  startRedisSentinel,
} from '@platform/testkit';
import { createRedisStore, RedisCounterStore, readRedisSettings } from '../../src/backends/redis/index.js';
import type { CounterHit } from '../../src/backends/store.js';
import { ruleCounters } from '../helpers/server.js';
import {
  eventually,
  IMMEDIATE_REPLICA_SYNC,
  recordingDeps,
  startServiceOnRedis,
  uniquePrefix,
} from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const noStop = { stopIncrementWhenOverLimit: false };
const T0 = 1_700_000_040_000; // the start of a minute, in ms

const sliding = (key: string, addend = 1, limit = 10, unit: CounterHit['unit'] = 'MINUTE'): CounterHit => ({
  key,
  addend,
  limit,
  unit,
  divider: 60,
  algorithm: { kind: 'sliding_window', windowMs: 60_000 },
});
const bucket = (key: string, addend = 1, burst = 4, unit: CounterHit['unit'] = 'SECOND'): CounterHit => ({
  key,
  addend,
  limit: burst,
  unit,
  divider: 1,
  algorithm: { kind: 'token_bucket', windowMs: 1000, rate: 2 },
});

/** A store whose scripts count with `clock.ms` instead of the server's TIME. */
function storeOn(redis: RedisProcess, clock: { ms: number }, env: Record<string, string> = {}) {
  return new RedisCounterStore(readRedisSettings({ REDIS_URL: redis.address, ...env }), recordingDeps(), 0, {
    scriptClock: () => clock.ms,
  });
}

/** A PTTL counting down from what the script set: at most that, and not 5 s less. */
function assertPttl(reported: string, expectedMs: number): void {
  const ttl = Number(reported);
  assert.ok(ttl <= expectedMs && ttl > expectedMs - 5000, `PTTL ${reported}, expected ${expectedMs}`);
}

async function commandCalls(redis: RedisProcess, command: string): Promise<number> {
  const info = await redisCli(redis.port, ['info', 'commandstats']);
  return Number(new RegExp(`cmdstat_${command}:calls=(\\d+)`).exec(info)?.[1] ?? 0);
}

describe('Redis store: sliding windows and token buckets by script', { skip }, () => {
  let redis: RedisProcess;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  test('a sliding window: the answers of the memory store, one hash per counter, kept two windows', async () => {
    const clock = { ms: T0 + 10_000 };
    const store = storeOn(redis, clock);
    const key = `${uniquePrefix('sw')}sliding`;
    try {
      assert.deepEqual(await store.hit([sliding(key, 6)], noStop), [6, 50_000]);
      assert.deepEqual((await redisCli(redis.port, ['hgetall', key])).split('\n'), [
        's',
        String(T0),
        'c',
        '6',
        'p',
        '0',
      ]);
      assertPttl(await redisCli(redis.port, ['pttl', key]), 110_000);
      clock.ms = T0 + 75_000;
      assert.deepEqual(await store.hit([sliding(key)], noStop), [6, 45_000]);
      clock.ms = T0 + 150_000;
      assert.deepEqual(await store.hit([sliding(key, 0)], noStop), [1, 30_000]);
    } finally {
      await store.close();
    }
  });

  test('a token bucket: takes when all tokens are there, never when refused, and expires when full', async () => {
    const clock = { ms: T0 };
    const store = storeOn(redis, clock);
    const key = `${uniquePrefix('tb')}bucket`;
    try {
      assert.deepEqual(await store.hit([bucket(key, 4)], noStop), [4, 2000]);
      assertPttl(await redisCli(redis.port, ['pttl', key]), 2000);
      clock.ms = T0 + 499;
      assert.deepEqual(await store.hit([bucket(key)], noStop), [5, 1501]);
      clock.ms = T0 + 500;
      assert.deepEqual(await store.hit([bucket(key)], noStop), [4, 2000]);
      assert.deepEqual((await redisCli(redis.port, ['hgetall', key])).split('\n'), [
        'd',
        '4000',
        't',
        String(T0 + 500),
      ]);
      assert.deepEqual(await store.hit([bucket(`${key}-zero`, 1, 0)], noStop), [1, 0]);
      assert.equal(
        await redisCli(redis.port, ['exists', `${key}-zero`]),
        '0',
        'a refused hit writes nothing',
      );
    } finally {
      await store.close();
    }
  });

  test('EVALSHA, and EVAL once after SCRIPT FLUSH (NOSCRIPT), counting every hit exactly once', async () => {
    const clock = { ms: T0 };
    const store = storeOn(redis, clock);
    const p = uniquePrefix('noscript');
    try {
      await redisCli(redis.port, ['script', 'flush']);
      const evalsBefore = await commandCalls(redis, 'eval');
      const fixed: CounterHit = { key: `${p}fixed`, addend: 1, limit: 10, unit: 'MINUTE', divider: 60 };
      const results = await store.hit([sliding(`${p}s`), fixed, bucket(`${p}b`)], noStop);
      assert.deepEqual(results.slice(0, 3), [1, 1, 1]);
      assert.deepEqual([results[3], results[5]], [60_000, 500], 'the reset times of the two scripts');
      assert.equal((await commandCalls(redis, 'eval')) - evalsBefore, 2, 'the two scripts, once each');
      const evalshaBefore = await commandCalls(redis, 'evalsha');
      const again = await store.hit([sliding(`${p}s`), fixed, bucket(`${p}b`)], noStop);
      assert.deepEqual(again.slice(0, 3), [2, 2, 2]);
      assert.equal((await commandCalls(redis, 'evalsha')) - evalshaBefore, 2);
      assert.equal((await commandCalls(redis, 'eval')) - evalsBefore, 2, 'no EVAL once loaded');
      assert.equal(
        await redisCli(redis.port, ['get', `${p}fixed`]),
        '2',
        'the fixed window counted once per call',
      );
    } finally {
      await store.close();
    }
  });

  test('the server clock (TIME) drives the scripts when no test clock is set', async () => {
    const store = createRedisStore(readRedisSettings({ REDIS_URL: redis.address }), recordingDeps(), 0);
    const key = `${uniquePrefix('time')}sliding`;
    try {
      const [after, reset] = await store.hit([sliding(key)], noStop);
      assert.equal(after, 1);
      const serverMs = Number((await redisCli(redis.port, ['time'])).split('\n')[0]) * 1000;
      const start = Number((await redisCli(redis.port, ['hget', key, 's'])) || 0);
      assert.ok(Math.abs(start + 60_000 - (reset as number) - serverMs) < 5_000, 'window start by TIME');
    } finally {
      await store.close();
    }
  });
});

describe('Redis store: the scripts on every topology', { skip }, () => {
  test('cluster: script keys on three nodes (each loads the scripts on first use)', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    const clock = { ms: T0 };
    const store = new RedisCounterStore(
      readRedisSettings({
        REDIS_TYPE: 'cluster',
        REDIS_URL: cluster.addresses,
        REDIS_PIPELINE_WINDOW: '1ms',
      }),
      recordingDeps(),
      0,
      { scriptClock: () => clock.ms },
    );
    try {
      const p = uniquePrefix('cluster');
      const hits = Array.from({ length: 8 }, (_, i) =>
        i % 2 ? sliding(`${p}s${i}`, 2) : bucket(`${p}b${i}`, 2),
      );
      const first = await store.hit(hits, noStop);
      assert.deepEqual(first.slice(0, 8), [2, 2, 2, 2, 2, 2, 2, 2]);
      const second = await store.hit(hits, noStop);
      assert.deepEqual(second.slice(0, 8), [4, 4, 4, 4, 4, 4, 4, 4]);
    } finally {
      await store.close();
      await cluster.stop();
    }
  });

  test('sentinel: scripts run on the master', async () => {
    const setup = await startRedisSentinel({ sentinels: 1, dataArgs: IMMEDIATE_REPLICA_SYNC });
    const clock = { ms: T0 };
    const store = new RedisCounterStore(
      readRedisSettings({ REDIS_TYPE: 'sentinel', REDIS_URL: setup.url }),
      recordingDeps(),
      0,
      { scriptClock: () => clock.ms },
    );
    try {
      const key = `${uniquePrefix('sentinel')}bucket`;
      assert.deepEqual(await store.hit([bucket(key, 3)], noStop), [3, 1500]);
      assert.equal(await redisCli(setup.master.port, ['hget', key, 'd']), '3000');
    } finally {
      await store.close();
      await setup.stop();
    }
  });

  test('REDIS_PERSECOND: SECOND-unit buckets go to the per-second Redis, the rest to the main one', async () => {
    const main = await startRedis();
    const perSecond = await startRedis();
    const clock = { ms: T0 };
    const store = new RedisCounterStore(
      readRedisSettings({
        REDIS_URL: main.address,
        REDIS_PERSECOND: 'true',
        REDIS_PERSECOND_URL: perSecond.address,
      }),
      recordingDeps(),
      0,
      { scriptClock: () => clock.ms },
    );
    try {
      const p = uniquePrefix('persecond');
      const results = await store.hit([sliding(`${p}s`, 2), bucket(`${p}b`, 3)], noStop);
      assert.deepEqual(results, [2, 3, 60_000, 1500]);
      assert.equal(await redisCli(perSecond.port, ['exists', `${p}b`]), '1');
      assert.equal(await redisCli(main.port, ['exists', `${p}s`]), '1');
      assert.equal(await redisCli(main.port, ['exists', `${p}b`]), '0');
    } finally {
      await store.close();
      await main.stop();
      await perSecond.stop();
    }
  });
});

describe('the service on Redis: key formats of the new algorithms and of lists', { skip }, () => {
  test('a list keeps the reference key for its first fixed window; the others get #index', async () => {
    const config = `domain: api
descriptors:
  - key: tenant
    rate_limits:
      - {unit: minute, requests_per_unit: 9, algorithm: sliding_window}
      - {unit: second, requests_per_unit: 3}
      - {unit: minute, requests_per_unit: 4}
      - {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 5}
  - key: report
    rate_limit: {unit: second, unit_multiplier: 30, requests_per_unit: 3}
`;
    const now = 1_700_000_040;
    const { redis, t } = await startServiceOnRedis({ 'api.yaml': config }, { CACHE_KEY_PREFIX: 'pre_' }, now);
    try {
      const response = await t.client.shouldRateLimit({
        domain: 'api',
        descriptors: [
          { entries: [{ key: 'tenant', value: 'acme' }] },
          { entries: [{ key: 'report', value: 'r' }] },
        ],
        hitsAddend: 1,
      });
      assert.equal(response.overallCode, 'OK');
      const keys = (await redisCli(redis.port, ['keys', '*'])).split('\n').sort();
      assert.deepEqual(keys, [
        'pre_api_report_r_1700000040',
        'pre_api_tenant_acme_1700000040',
        'pre_api_tenant_acme_1700000040#2',
        'pre_api_tenant_acme_bucket#3',
        'pre_api_tenant_acme_sliding#0',
      ]);
      // Fixed windows keep INCRBY + EXPIRE: a string counter with the window (plus no jitter here).
      assert.equal(await redisCli(redis.port, ['type', 'pre_api_tenant_acme_1700000040#2']), 'string');
      assert.equal(await redisCli(redis.port, ['type', 'pre_api_tenant_acme_sliding#0']), 'hash');
      assert.equal(ruleCounters(t.server, 'api.tenant').total_hits, 1);
      await eventually(
        async () => Number(await redisCli(redis.port, ['ttl', 'pre_api_report_r_1700000040'])) > 0,
      );
    } finally {
      await t.stop();
      await redis.stop();
    }
  });
});

describe('the service on Redis: STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT with scripts', { skip }, () => {
  const config = `domain: api
descriptors:
  - key: pair
    rate_limits:
      - {unit: second, requests_per_unit: 2}
      - {unit: day, requests_per_unit: 3, algorithm: sliding_window}
`;
  for (const [stop, remaining] of [
    ['true', 1],
    ['false', 0],
  ] as const) {
    test(`STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=${stop}: the script only looks first, then counts what is over`, async () => {
      const now = 1_700_000_040;
      const { redis, t } = await startServiceOnRedis(
        { 'api.yaml': config },
        { STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: stop },
        now,
      );
      const call = async (addend: number) =>
        (
          await t.client.shouldRateLimit({
            domain: 'api',
            descriptors: [{ entries: [{ key: 'pair', value: 'p' }], hitsAddend: { value: addend } }],
            hitsAddend: 1,
          })
        ).statuses as { code: string; limitRemaining: number; currentLimit: { unit: string } }[];
      try {
        await call(1);
        await call(1);
        assert.equal((await call(1))[0]?.code, 'OVER_LIMIT');
        t.clock.seconds = now + 1;
        const [next] = await call(0);
        assert.equal(next?.currentLimit.unit, 'DAY');
        assert.equal(next?.limitRemaining, remaining);
      } finally {
        await t.stop();
        await redis.stop();
      }
    });
  }
});
