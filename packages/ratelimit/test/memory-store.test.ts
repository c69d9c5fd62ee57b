import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { MemoryStore } from '../src/backends/memory.js';
import type { CounterHit } from '../src/backends/store.js';
import { silentLogger } from '../src/log.js';
import { StatStore } from '../src/stats/store.js';

function storeAt(clock: { now: number }, maxCounters = 1000, maxBytes = 1 << 30) {
  const stats = new StatStore();
  const deps = { stats, log: silentLogger, now: () => clock.now * 1000, random: () => 0 };
  const store = new MemoryStore(deps, { maxCounters, maxBytes });
  after(() => store.close());
  return { store, stats };
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
  // Each call reclaims a few expired counters, so they leave as traffic goes on.
  for (let i = 0; i < 15; i++) await store.hit([hit('live')], plain);
  assert.ok(store.size <= 2, `size ${store.size}`);
});

test('expired counters are reclaimed without traffic, by a timer', async () => {
  const clock = { now: 1000 };
  const { store } = storeAt(clock);
  for (let i = 0; i < 100; i++) await store.hit([hit(`k${i}`, 1, 10, 1)], plain);
  clock.now = 1001;
  await new Promise((resolve) => setTimeout(resolve, 1500));
  assert.equal(store.size, 0);
  // What they held stays resident (pages are not given back) and is used again: as many new
  // counters take no more.
  const held = store.accountedBytes;
  for (let i = 0; i < 100; i++) await store.hit([hit(`n${i}`, 1, 10, 1)], plain);
  assert.equal(store.size, 100);
  assert.equal(store.accountedBytes, held);
});

test('memory stays bounded: past maxCounters the least recently used counter is evicted and counted', async () => {
  const { store, stats } = storeAt({ now: 1000 }, 10);
  for (let i = 0; i < 15; i++) await store.hit([hit(`k${i}`)], plain);
  assert.equal(store.size, 10);
  assert.equal(stats.snapshot().counters.get('ratelimit.memory.evictions'), 5);
  assert.deepEqual(await store.hit([hit('k14', 0)], plain), [1]);
});

test('a counter still asked about survives a flood of new keys; an expired one goes before any live one', async () => {
  const clock = { now: 1000 };
  const { store, stats } = storeAt(clock, 100);
  await store.hit([hit('victim', 11)], plain);
  for (let i = 0; i < 10_000; i++) {
    await store.hit([hit(`flood${i}`)], plain);
    if (i % 50 === 0) assert.deepEqual(await store.hit([hit('victim', 0)], plain), [11]);
  }
  // A second-long counter, the most recently used, expires: the next new key takes its place
  // rather than the least recently used live counter's.
  await store.hit([hit('short', 1, 10, 1)], plain);
  const evicted = stats.snapshot().counters.get('ratelimit.memory.evictions');
  clock.now = 1001;
  await store.hit([hit('fresh')], plain);
  assert.equal(stats.snapshot().counters.get('ratelimit.memory.evictions'), evicted);
  assert.equal(store.size, 100);
  assert.deepEqual(await store.hit([hit('victim', 0)], plain), [11]);
});

test('MEMORY_MAX_BYTES bounds keys and bookkeeping together', async () => {
  const maxBytes = 2 * 1024 * 1024;
  const { store } = storeAt({ now: 1000 }, 1_000_000, maxBytes);
  const big = 'x'.repeat(100_000);
  for (let i = 0; i < 100; i++) {
    await store.hit([hit(`${i}_${big}`)], plain);
    assert.ok(store.accountedBytes <= maxBytes, `${store.accountedBytes} bytes`);
  }
  // 20 keys of 100 kB fit in 2 MiB; the arena is packed once an eighth of it is evicted keys, so
  // between 7/8 of that and all of it are kept.
  assert.ok(store.size >= 17 && store.size <= 20, `${store.size} keys`);
  // A key outside Latin-1 is stored at two bytes a character, and counted so: half as many fit.
  for (let i = 0; i < 100; i++) {
    await store.hit([hit(`\u4e2d${i}${big}`)], plain);
    assert.ok(store.accountedBytes <= maxBytes, `${store.accountedBytes} bytes`);
  }
  assert.ok(store.size >= 8 && store.size <= 10, `${store.size} keys`);
});

test('maxBytes above 2 GiB is refused with its name: the key arena is one buffer of that size', () => {
  assert.throws(
    () => storeAt({ now: 1000 }, 1000, 2 ** 31 + 1),
    /^RangeError: maxBytes \(MEMORY_MAX_BYTES\) 2147483649 is above 2147483648 \(2 GiB\)$/,
  );
});

test('a new key costs the same when the store is full as when it is filling', async () => {
  const count = 50_000;
  const { store } = storeAt({ now: 1000 }, count);
  const insert = async (prefix: string) => {
    const started = performance.now();
    for (let i = 0; i < count; i++) store.hitAt([hit(`${prefix}${i}`)], plain, 1000);
    return performance.now() - started;
  };
  const filling = await insert('fill');
  const full = await insert('evict');
  assert.equal(store.size, count);
  // Eviction is O(1): generous headroom for a busy machine, far below a scan per eviction.
  assert.ok(full < filling * 10 + 200, `filling ${filling} ms, full ${full} ms`);
});

test('stop-increment: once one counter would pass its limit, only the counters over advance', async () => {
  const { store } = storeAt({ now: 1000 });
  const stop = { stopIncrementWhenOverLimit: true };
  await store.hit([hit('small', 2, 2)], plain);
  assert.deepEqual(await store.hit([hit('big', 1, 20), hit('small', 1, 2)], stop), [0, 3]);
  assert.deepEqual(await store.hit([hit('big', 1, 20), hit('fresh', 1, 2)], stop), [1, 1]);
});
