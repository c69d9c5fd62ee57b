import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryStore } from '../src/backends/memory.js';
import type { CounterHit } from '../src/backends/store.js';
import { silentLogger } from '../src/log.js';
import { StatStore } from '../src/stats/store.js';

function storeAt(clock: { now: number }, maxCounters = 1000) {
  const stats = new StatStore();
  const deps = { stats, log: silentLogger, now: () => clock.now, random: () => 0 };
  return { store: new MemoryStore(deps, { maxCounters }), stats };
}

const hit = (key: string, addend = 1, limit = 10, divider = 60): CounterHit => ({
  key,
  addend,
  limit,
  unit: 'MINUTE',
  divider,
});
const plain = { stopIncrementWhenOverLimit: false };

test('counters add and return the value after the addition; addend 0 only reads', async () => {
  const { store } = storeAt({ now: 1000 });
  assert.deepEqual(await store.hit([hit('a', 3), hit('b')], plain), [3, 1]);
  assert.deepEqual(await store.hit([hit('a', 0)], plain), [3]);
  assert.deepEqual(await store.hit([hit('a', 2)], plain), [5]);
});

test('counters expire after their window length, without timers', async () => {
  const clock = { now: 1000 };
  const { store } = storeAt(clock);
  await store.hit([hit('a', 5)], plain);
  clock.now = 1059;
  assert.deepEqual(await store.hit([hit('a', 0)], plain), [5]);
  clock.now = 1060;
  assert.deepEqual(await store.hit([hit('a', 1)], plain), [1]);
  for (let i = 0; i < 50; i++) await store.hit([hit(`k${i}`)], plain);
  clock.now = 2000;
  // Each call sweeps a few entries, so expired counters leave as traffic goes on.
  for (let i = 0; i < 50; i++) await store.hit([hit('live')], plain);
  assert.ok(store.size <= 2, `size ${store.size}`);
});

test('memory stays bounded: past maxCounters the oldest counter is evicted and counted', async () => {
  const { store, stats } = storeAt({ now: 1000 }, 10);
  for (let i = 0; i < 15; i++) await store.hit([hit(`k${i}`)], plain);
  assert.equal(store.size, 10);
  assert.equal(stats.snapshot().counters.get('ratelimit.memory.evictions'), 5);
  assert.deepEqual(await store.hit([hit('k14', 0)], plain), [1]);
});

test('stop-increment: once one counter would pass its limit, only the counters over advance', async () => {
  const { store } = storeAt({ now: 1000 });
  const stop = { stopIncrementWhenOverLimit: true };
  await store.hit([hit('small', 2, 2)], plain);
  assert.deepEqual(await store.hit([hit('big', 1, 20), hit('small', 1, 2)], stop), [0, 3]);
  assert.deepEqual(await store.hit([hit('big', 1, 20), hit('fresh', 1, 2)], stop), [1, 1]);
});
