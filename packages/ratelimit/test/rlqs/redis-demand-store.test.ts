import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RedisProcess, startRedis, startRedisCluster } from '@platform/testkit';
import { Redis } from 'ioredis';
import type { DemandEntry } from '../../src/backends/demand.js';
import { RedisDemandStore } from '../../src/backends/redis/demand-store.js';
import { readRedisSettings } from '../../src/backends/redis/settings.js';

const TTL_MS = 3000;
const PREFIX = 'test_rlqs:';
const BUCKET = 'quota|route=a';

/**
 * The Redis demand store against a real Redis, two instances on one: what one writes the other
 * reads, steady demand is not written again, a silent instance's entries go, and a hash that lost
 * an instance's entries gets them back.
 */
describe('RLQS demand in Redis', () => {
  let redis: RedisProcess;
  let inspect: Redis;
  const stores: RedisDemandStore[] = [];

  before(async () => {
    redis = await startRedis();
    inspect = new Redis(redis.port, '127.0.0.1');
  });
  after(async () => {
    await Promise.all(stores.map((store) => store.close()));
    inspect.disconnect();
    await redis.stop();
  });

  function storeOf(instance: string): RedisDemandStore {
    const settings = readRedisSettings({ REDIS_URL: redis.address }).main;
    const store = new RedisDemandStore(settings, PREFIX, instance);
    stores.push(store);
    return store;
  }

  const write = (instance: string, stream: number, perSecond: number) => ({
    bucket: BUCKET,
    client: `${instance}/${stream}`,
    perSecond,
  });
  const entries = (...pairs: [string, number][]): DemandEntry[] =>
    pairs.map(([client, perSecond]) => ({ client, perSecond }));

  test('both instances read every client; a move within 5 % is not written, a larger one is', async () => {
    await inspect.flushall();
    const a = storeOf('a');
    const b = storeOf('b');
    await a.exchange([write('a', 1, 10)], [BUCKET], 1000, TTL_MS);
    const [seenByB] = await b.exchange([write('b', 1, 20)], [BUCKET], 1000, TTL_MS);
    assert.deepEqual(seenByB, entries(['a/1', 10], ['b/1', 20]));
    const [seenByA] = await a.exchange([write('a', 1, 10.4)], [BUCKET], 1100, TTL_MS);
    assert.deepEqual(seenByA, entries(['a/1', 10], ['b/1', 20]), 'a 4 % move is not written');
    assert.equal(await inspect.hget(PREFIX + BUCKET, 'a/1'), '10');
    await a.exchange([write('a', 1, 12)], [BUCKET], 1200, TTL_MS);
    assert.equal(await inspect.hget(PREFIX + BUCKET, 'a/1'), '12');
    const [again] = await b.exchange([write('b', 1, 20)], [BUCKET], 1200, TTL_MS);
    assert.deepEqual(again, entries(['a/1', 12], ['b/1', 20]), 'b sees the new version');
  });

  test('an unchanged bucket comes back as its version alone, and the entries read before are kept', async () => {
    await inspect.flushall();
    const a = storeOf('a');
    await a.exchange([write('a', 1, 10)], [BUCKET], 1000, TTL_MS);
    const version = await inspect.hget(PREFIX + BUCKET, '#version');
    await inspect.hset(PREFIX + BUCKET, 'a/2', '99'); // behind the version's back: not seen
    const [entriesNow] = await a.exchange([write('a', 1, 10)], [BUCKET], 1100, TTL_MS);
    assert.deepEqual(entriesNow, entries(['a/1', 10]));
    assert.equal(await inspect.hget(PREFIX + BUCKET, '#version'), version);
  });

  test('the entries of an instance silent for the TTL are dropped by the next exchange', async () => {
    await inspect.flushall();
    const a = storeOf('a');
    const b = storeOf('b');
    await a.exchange([write('a', 1, 10)], [BUCKET], 1000, TTL_MS);
    await b.exchange([write('b', 1, 20)], [BUCKET], 1000, TTL_MS);
    const [before] = await b.exchange([write('b', 1, 20)], [BUCKET], 1000 + TTL_MS - 1, TTL_MS);
    assert.deepEqual(before, entries(['a/1', 10], ['b/1', 20]));
    const [afterSilence] = await b.exchange([write('b', 1, 20)], [BUCKET], 1000 + TTL_MS + 1, TTL_MS);
    assert.deepEqual(afterSilence, entries(['b/1', 20]));
    assert.equal(await inspect.hget(PREFIX + BUCKET, 'a/1'), null);
  });

  test('a hash that lost its entries (Redis flushed) is written in full by the next exchange', async () => {
    await inspect.flushall();
    const a = storeOf('a');
    await a.exchange([write('a', 1, 10), write('a', 2, 5)], [BUCKET], 1000, TTL_MS);
    await inspect.flushall();
    const [lost] = await a.exchange([write('a', 1, 10), write('a', 2, 5)], [BUCKET], 1100, TTL_MS);
    assert.deepEqual(lost, []);
    const [back] = await a.exchange([write('a', 1, 10), write('a', 2, 5)], [BUCKET], 1200, TTL_MS);
    assert.deepEqual(back, entries(['a/1', 10], ['a/2', 5]));
  });

  test('writes are changes: a steady client written once stays, and a lost hash gets it back unasked', async () => {
    await inspect.flushall();
    const a = storeOf('a');
    const b = storeOf('b');
    await a.exchange([write('a', 1, 10)], [BUCKET], 1000, TTL_MS);
    const [steady] = await b.exchange([], [BUCKET], 1000 + 2 * TTL_MS, TTL_MS);
    assert.deepEqual(steady, [], 'a silent for twice the TTL: its entry is gone');
    const [back] = await a.exchange([], [BUCKET], 1000 + 2 * TTL_MS, TTL_MS);
    assert.deepEqual(back, [], 'the read that finds it gone');
    const [rewritten] = await a.exchange([], [BUCKET], 1000 + 2 * TTL_MS + 1, TTL_MS);
    assert.deepEqual(rewritten, entries(['a/1', 10]), 'written again from what a keeps');
    await inspect.flushall();
    const [lost] = await a.exchange([], [BUCKET], 1000 + 2 * TTL_MS + 2, TTL_MS);
    assert.deepEqual(lost, [], 'Redis lost it');
    await a.exchange([], [BUCKET], 1000 + 2 * TTL_MS + 3, TTL_MS);
    const [afterFlush] = await b.exchange([], [BUCKET], 1000 + 2 * TTL_MS + 4, TTL_MS);
    assert.deepEqual(afterFlush, entries(['a/1', 10]), 'b reads it after a wrote it again');
  });

  test('remove deletes the entries and bumps the version, so every instance sees them go', async () => {
    await inspect.flushall();
    const a = storeOf('a');
    const b = storeOf('b');
    await a.exchange([write('a', 1, 10)], [BUCKET], 1000, TTL_MS);
    await b.exchange([write('b', 1, 20)], [BUCKET], 1000, TTL_MS);
    await a.remove([{ bucket: BUCKET, client: 'a/1' }]);
    const [seenByB] = await b.exchange([write('b', 1, 20)], [BUCKET], 1100, TTL_MS);
    assert.deepEqual(seenByB, entries(['b/1', 20]));
  });

  test('a Redis that does not answer rejects the exchange with a StoreError', async () => {
    const settings = readRedisSettings({ REDIS_URL: '127.0.0.1:1', REDIS_TIMEOUT: '200ms' }).main;
    const dead = new RedisDemandStore(settings, PREFIX, 'dead');
    stores.push(dead);
    await assert.rejects(
      dead.exchange([write('dead', 1, 1)], [BUCKET], 1000, TTL_MS),
      (error: Error) => error.name === 'StoreError' && /rlqs demand exchange failed/.test(error.message),
    );
  });
});

describe('RLQS demand in a Redis Cluster', () => {
  test('the heartbeat and each bucket are calls of their own: two instances read each other, a removal shows', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    const stores: RedisDemandStore[] = [];
    try {
      const settings = readRedisSettings({
        REDIS_TYPE: 'cluster',
        REDIS_URL: cluster.addresses,
        REDIS_PIPELINE_WINDOW: '1ms',
      }).main;
      const a = new RedisDemandStore(settings, PREFIX, 'a');
      const b = new RedisDemandStore(settings, PREFIX, 'b');
      stores.push(a, b);
      const buckets = ['quota|route=a', 'quota|route=b', 'quota|route=c'];
      const writes = (instance: string, perSecond: number) =>
        buckets.map((bucket) => ({ bucket, client: `${instance}/1`, perSecond }));
      await a.exchange(writes('a', 10), buckets, 1000, TTL_MS);
      const seen = await b.exchange(writes('b', 20), buckets, 1000, TTL_MS);
      for (const entriesOfBucket of seen) {
        assert.deepEqual(entriesOfBucket, [
          { client: 'a/1', perSecond: 10 },
          { client: 'b/1', perSecond: 20 },
        ]);
      }
      await a.remove([{ bucket: 'quota|route=b', client: 'a/1' }]);
      const [, afterRemoval] = await b.exchange([], buckets, 1100, TTL_MS);
      assert.deepEqual(afterRemoval, [{ client: 'b/1', perSecond: 20 }]);
    } finally {
      await Promise.all(stores.map((store) => store.close()));
      await cluster.stop();
    }
  });
});
