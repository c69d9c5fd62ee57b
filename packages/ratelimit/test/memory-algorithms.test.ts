import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { MemoryStore } from '../src/backends/memory.js';
import type { CounterHit } from '../src/backends/store.js';
import { silentLogger } from '../src/log.js';
import { StatStore } from '../src/stats/store.js';

const T0 = 1_700_000_040_000; // the start of a minute, in ms
const plain = { stopIncrementWhenOverLimit: false };

function store(maxCounters = 1000) {
  const deps = { stats: new StatStore(), log: silentLogger, now: () => T0, random: () => 0 };
  const created = new MemoryStore(deps, { maxCounters, maxBytes: 1 << 30 });
  after(() => created.close());
  return created;
}

const sliding = (key: string, addend = 1, limit = 10): CounterHit => ({
  key,
  addend,
  limit,
  unit: 'MINUTE',
  divider: 60,
  algorithm: { kind: 'sliding_window', windowMs: 60_000 },
});
const bucket = (key: string, addend = 1, burst = 4): CounterHit => ({
  key,
  addend,
  limit: burst,
  unit: 'SECOND',
  divider: 1,
  algorithm: { kind: 'token_bucket', windowMs: 1000, rate: 2 },
});
const fixed = (key: string): CounterHit => ({ key, addend: 1, limit: 10, unit: 'SECOND', divider: 1 });

test('a sliding window carries its count into the next window, and the window after forgets it', () => {
  const s = store();
  s.hitAt([sliding('w', 6)], plain, T0 + 10_000);
  // Next window, a quarter in: 6 × 3/4 = 4.5, rounded up to 5, plus this hit.
  assert.deepEqual(s.hitAt([sliding('w')], plain, T0 + 75_000), [6, 45_000]);
  // The window after: only the one hit of the window before counts, 1 × 1/2 rounded up.
  assert.deepEqual(s.hitAt([sliding('w', 0)], plain, T0 + 150_000), [1, 30_000]);
});

test('a sliding window lives two windows (and a second) after its last window moved, then is reclaimed', () => {
  const s = store();
  s.hitAt([sliding('w')], plain, T0 + 59_999);
  s.hitAt([fixed('other')], plain, T0 + 120_000);
  assert.equal(s.size, 2, 'still needed: its window is the one before this one');
  s.hitAt([fixed('other')], plain, T0 + 181_000);
  assert.equal(s.size, 1, 'reclaimed once it weighs in no estimate');
});

test('a token bucket is kept until it could be full again, then reclaimed (no key is a full bucket)', () => {
  const s = store();
  assert.deepEqual(s.hitAt([bucket('b', 4)], plain, T0), [4, 2000]);
  assert.deepEqual(s.hitAt([bucket('b')], plain, T0 + 499), [5, 1501], 'refused, nothing taken');
  assert.equal(s.size, 1);
  s.hitAt([fixed('other')], plain, T0 + 3000);
  assert.equal(s.size, 1, 'full after 2 s from empty, plus the rounding second: reclaimed');
  assert.deepEqual(s.hitAt([bucket('b', 0)], plain, T0 + 3000), [0, 0]);
});

test('a bucket that is over and still asked about survives a flood of new keys (LRU)', () => {
  const s = store(100);
  s.hitAt([bucket('victim', 4)], plain, T0);
  for (let i = 0; i < 1000; i++) {
    s.hitAt([fixed(`flood${i}`)], plain, T0 + 1);
    if (i % 50 === 0) assert.equal(s.hitAt([bucket('victim')], plain, T0 + 1)[0], 5);
  }
  assert.equal(s.hitAt([bucket('victim')], plain, T0 + 1)[0], 5, 'still over: the flood evicted others');
});

test('looking (rule 11) neither counts nor moves a state', () => {
  const s = store();
  const stop = { stopIncrementWhenOverLimit: true };
  s.hitAt([sliding('w', 10), bucket('b', 4)], plain, T0);
  // The bucket is empty: it is over, so only it advances (and a refused hit takes nothing).
  assert.deepEqual(s.hitAt([sliding('w', 0, 11), bucket('b')], stop, T0 + 1)[0], 10);
  assert.deepEqual(s.hitAt([sliding('w', 1, 11), bucket('b')], stop, T0 + 2)[0], 10, 'not counted');
  assert.deepEqual(s.hitAt([sliding('w', 1, 11)], stop, T0 + 3)[0], 11);
});
