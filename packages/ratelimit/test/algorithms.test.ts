import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  rollSlidingWindow,
  type SlidingWindowState,
  slidingWindowHit,
  slidingWindowTtlMs,
} from '../src/backends/algorithms/sliding-window.js';
import {
  refillTokenBucket,
  type TokenBucketState,
  tokenBucketHit,
} from '../src/backends/algorithms/token-bucket.js';

const T0 = 1_700_000_040_000; // a multiple of 60 s, in ms

describe('sliding window at the window edges (W = 60 s, limit 10)', () => {
  const W = 60_000;
  // `previous` hits in the window before, `current` before the hit, then `at` ms into the window.
  const TABLE = [
    { name: 'empty', previous: 0, current: 0, at: 0, addend: 1, after: 1, reset: 60_000 },
    {
      name: 'window start: all of P counts',
      previous: 10,
      current: 0,
      at: 0,
      addend: 1,
      after: 11,
      reset: 60_000,
    },
    { name: 'half way: half of P', previous: 10, current: 0, at: 30_000, addend: 1, after: 6, reset: 30_000 },
    {
      name: 'last ms: P rounds up to 1',
      previous: 10,
      current: 0,
      at: 59_999,
      addend: 1,
      after: 2,
      reset: 1,
    },
    {
      name: 'addend 3 reaches the limit',
      previous: 10,
      current: 2,
      at: 30_000,
      addend: 3,
      after: 10,
      reset: 30_000,
    },
    { name: 'addend 4 passes it', previous: 10, current: 2, at: 30_000, addend: 4, after: 11, reset: 30_000 },
    {
      name: 'addend 0 only looks',
      previous: 10,
      current: 5,
      at: 30_000,
      addend: 0,
      after: 10,
      reset: 30_000,
    },
    {
      name: 'a third of P (rounded up)',
      previous: 10,
      current: 0,
      at: 40_000,
      addend: 1,
      after: 5,
      reset: 20_000,
    },
  ];
  for (const row of TABLE) {
    test(row.name, () => {
      const state: SlidingWindowState = { start: T0 - W, current: row.previous, previous: 0 };
      rollSlidingWindow(state, T0, W);
      state.current = row.current;
      const answer = slidingWindowHit(state, T0 + row.at, W, row.addend, true);
      assert.deepEqual(answer, { after: row.after, resetMs: row.reset });
      assert.equal(state.current, row.current + row.addend, 'the hit is counted whatever the verdict');
    });
  }

  test('the window before last no longer counts', () => {
    const state: SlidingWindowState = { start: T0 - 2 * W, current: 10, previous: 7 };
    rollSlidingWindow(state, T0, W);
    assert.deepEqual(state, { start: T0, current: 0, previous: 0 });
  });

  test('a counter lives until its window and the next one are over', () => {
    const state: SlidingWindowState = { start: T0, current: 1, previous: 0 };
    assert.equal(slidingWindowTtlMs(state, T0 + 15_000, W), 105_000);
  });

  test('looking does not count', () => {
    const state: SlidingWindowState = { start: T0, current: 4, previous: 0 };
    assert.equal(slidingWindowHit(state, T0, W, 3, false).after, 7);
    assert.equal(state.current, 4);
  });

  test('limit 0: every hit that adds is over, a check-only hit is not', () => {
    const state: SlidingWindowState = { start: T0, current: 0, previous: 0 };
    assert.ok(slidingWindowHit(state, T0, W, 0, true).after <= 0);
    assert.ok(slidingWindowHit(state, T0, W, 1, true).after > 0);
  });
});

describe('token bucket at refill edges (2 tokens per second, burst 5)', () => {
  const params = { windowMs: 1000, rate: 2, burst: 5 };
  const fresh = (): TokenBucketState => ({ debt: 0, updatedAt: T0 });
  const hit = (state: TokenBucketState, at: number, addend = 1) => {
    refillTokenBucket(state, T0 + at, params.rate);
    return tokenBucketHit(state, params, addend, true);
  };

  test('a full bucket gives burst tokens at once, then refuses', () => {
    const state = fresh();
    const afters = [1, 2, 3, 4, 5].map(() => hit(state, 0).after);
    assert.deepEqual(afters, [1, 2, 3, 4, 5]);
    const refused = hit(state, 0);
    assert.deepEqual(refused, { after: 6, resetMs: 2500 }, 'full again in 5 tokens / 2 per s');
    assert.equal(state.debt, 5000, 'a refused hit takes nothing');
  });

  test('one token comes back after 500 ms, not 1 ms sooner', () => {
    const state = fresh();
    for (let i = 0; i < 5; i++) hit(state, 0);
    assert.equal(hit(state, 499).after, 6);
    assert.deepEqual(hit(state, 500), { after: 5, resetMs: 2500 });
  });

  test('hits_addend 3 with 2 tokens left is refused and takes none; 2 is allowed', () => {
    const state = fresh();
    hit(state, 0, 3);
    assert.equal(hit(state, 0, 3).after, 6);
    assert.deepEqual(hit(state, 0, 2), { after: 5, resetMs: 2500 });
  });

  test('the bucket refills to its burst and no further', () => {
    const state = fresh();
    hit(state, 0, 5);
    assert.deepEqual(hit(state, 3_600_000, 0), { after: 0, resetMs: 0 });
    assert.equal(hit(state, 3_600_000, 5).after, 5);
    assert.equal(hit(state, 3_600_000, 1).after, 6);
  });

  test('a clock that goes back refills nothing', () => {
    const state = fresh();
    hit(state, 1000, 5);
    assert.equal(hit(state, 0, 1).after, 6);
  });

  test('limit 0 (no refill, no burst): every hit that takes is refused', () => {
    const zero = { windowMs: 1000, rate: 0, burst: 0 };
    const state = fresh();
    assert.deepEqual(tokenBucketHit(state, zero, 1, true), { after: 1, resetMs: 0 });
    assert.deepEqual(tokenBucketHit(state, zero, 0, true), { after: 0, resetMs: 0 });
  });

  test('a rate that does not divide the period stays exact (3 per second)', () => {
    const three = { windowMs: 1000, rate: 3, burst: 1 };
    const state = fresh();
    assert.equal(tokenBucketHit(state, three, 1, true).after, 1);
    refillTokenBucket(state, T0 + 333, 3);
    assert.equal(tokenBucketHit(state, three, 1, true).after, 2, '333 ms refill 999/1000 of a token');
    refillTokenBucket(state, T0 + 334, 3);
    assert.equal(tokenBucketHit(state, three, 1, true).after, 1);
  });
});
