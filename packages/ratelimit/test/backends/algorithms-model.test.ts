import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RedisProcess, serviceSkip, startRedis } from '@platform/testkit';
import { MemoryStore } from '../../src/backends/memory.js';
import { RedisCounterStore, readRedisSettings } from '../../src/backends/redis/index.js';
import type { CounterHit } from '../../src/backends/store.js';
import { silentLogger } from '../../src/log.js';
import type { AlgorithmParams } from '../../src/protocol/algorithm.js';
import { StatStore } from '../../src/stats/store.js';
import { seededRandom as random } from '../helpers/seeded-random.js';
import { recordingDeps, uniquePrefix } from './helpers.js';

/**
 * Model-based property test: random request sequences against a small reference model of each
 * algorithm, written from the README's definitions in rationals (BigInt), not from the stores'
 * code. The memory store and Redis (its scripts on a test clock) must answer as the model does.
 */

const skip = serviceSkip('redis-server', 'redis-server');
const noStop = { stopIncrementWhenOverLimit: false };

/** What a store answers for one hit: `after` and the reset in ms. */
type Answer = readonly [after: number, resetMs: number];

interface Model {
  hit(nowMs: number, addend: number): Answer;
}

/** The two-window estimate from a log of every counted hit. */
class SlidingWindowModel implements Model {
  private readonly log: { at: number; addend: number }[] = [];
  constructor(
    private readonly windowMs: number,
    private readonly limit: number,
  ) {}

  hit(nowMs: number, addend: number): Answer {
    const w = BigInt(this.windowMs);
    const start = nowMs - (nowMs % this.windowMs);
    const sum = (from: number, to: number) =>
      this.log.filter((h) => h.at >= from && h.at < to).reduce((total, h) => total + h.addend, 0);
    const previous = BigInt(sum(start - this.windowMs, start));
    const current = BigInt(sum(start, nowMs + 1));
    const elapsed = BigInt(nowMs - start);
    // estimate = P × (W − e) / W + C; the hit is allowed when estimate + addend <= limit.
    const carried = previous * (w - elapsed);
    const carriedUp = (carried + w - 1n) / w;
    const after = Number(current + BigInt(addend) + carriedUp);
    const allowed = carried + (current + BigInt(addend)) * w <= BigInt(this.limit) * w;
    assert.equal(after <= this.limit, allowed, 'after <= limit exactly when the estimate allows the hit');
    if (addend > 0) this.log.push({ at: nowMs, addend });
    return [after, Number(w - elapsed)];
  }
}

/** Tokens available, as a fraction over the refill period, refilled continuously up to the burst. */
class TokenBucketModel implements Model {
  /** tokens × windowMs */
  private level: bigint;
  private last: number | undefined;
  constructor(
    private readonly windowMs: number,
    private readonly rate: number,
    private readonly burst: number,
  ) {
    this.level = BigInt(burst) * BigInt(windowMs);
  }

  hit(nowMs: number, addend: number): Answer {
    const w = BigInt(this.windowMs);
    const full = BigInt(this.burst) * w;
    if (this.last === undefined || nowMs > this.last) {
      if (this.last !== undefined) this.level += BigInt(nowMs - this.last) * BigInt(this.rate);
      if (this.level > full) this.level = full;
      this.last = nowMs;
    }
    const wholeTokens = this.level / w;
    const after = this.burst - Number(wholeTokens) + addend;
    const cost = BigInt(addend) * w;
    if (this.level >= cost) this.level -= cost;
    assert.equal(after <= this.burst, this.level + cost <= full && wholeTokens >= BigInt(addend));
    const missing = full - this.level;
    const rate = BigInt(this.rate);
    return [after, rate === 0n ? 0 : Number((missing + rate - 1n) / rate)];
  }
}

interface Case {
  readonly seed: number;
  readonly params: AlgorithmParams;
  readonly limit: number;
  readonly steps: readonly { readonly advanceMs: number; readonly addend: number }[];
}

const WINDOWS = [60_000, 90_000, 120_000];

function generate(seed: number): Case {
  const next = random(seed);
  const pick = <T>(values: readonly T[]) => values[Math.floor(next() * values.length)] as T;
  const windowMs = pick(WINDOWS);
  const params: AlgorithmParams =
    next() < 0.5
      ? { kind: 'sliding_window', windowMs }
      : { kind: 'token_bucket', windowMs, rate: pick([1, 2, 3, 5, 7]) };
  const limit = pick([0, 1, 2, 3, 5, 8]);
  const steps = Array.from({ length: 60 }, () => ({
    // Mostly small steps, sometimes across a window edge or past a whole window.
    advanceMs: pick([
      0,
      0,
      1,
      7,
      999,
      Math.floor(windowMs / 3),
      windowMs - 1,
      windowMs,
      Math.floor(windowMs * 1.5),
    ]),
    addend: pick([0, 1, 1, 1, 2, 3]),
  }));
  return { seed, params, limit: params.kind === 'token_bucket' && params.rate === 0 ? 0 : limit, steps };
}

function modelOf(c: Case): Model {
  return c.params.kind === 'sliding_window'
    ? new SlidingWindowModel(c.params.windowMs, c.limit)
    : new TokenBucketModel(c.params.windowMs, c.params.rate, c.limit);
}

const START = 1_700_000_000_000;
const SEEDS = Array.from({ length: 40 }, (_, i) => 1000 + i);

function hitOf(key: string, c: Case, addend: number): CounterHit {
  return { key, addend, limit: c.limit, unit: 'MINUTE', divider: 60, algorithm: c.params };
}

test('the memory store answers every random sequence as the model does', () => {
  for (const seed of SEEDS) {
    const c = generate(seed);
    const deps = { stats: new StatStore(), log: silentLogger, now: () => START, random: () => 0 };
    const store = new MemoryStore(deps, { maxCounters: 1000, maxBytes: 1 << 24 });
    const model = modelOf(c);
    let now = START;
    try {
      c.steps.forEach((step, i) => {
        now += step.advanceMs;
        const results = store.hitAt([hitOf('k', c, step.addend)], noStop, now);
        const expected = model.hit(now, step.addend);
        assert.deepEqual([results[0], results[1]], expected, `seed ${seed} step ${i} (${c.params.kind})`);
      });
    } finally {
      void store.close();
    }
  }
});

describe('Redis and the model', { skip }, () => {
  let redis: RedisProcess;
  before(async () => {
    redis = await startRedis();
  });
  after(() => redis.stop());

  test('Redis (its scripts on a test clock) answers every random sequence as the model does', async () => {
    const clock = { ms: START };
    const store = new RedisCounterStore(readRedisSettings({ REDIS_URL: redis.address }), recordingDeps(), 0, {
      scriptClock: () => clock.ms,
    });
    try {
      for (const seed of SEEDS) {
        const c = generate(seed);
        const key = `${uniquePrefix('model')}${seed}`;
        const model = modelOf(c);
        clock.ms = START;
        for (const [i, step] of c.steps.entries()) {
          clock.ms += step.advanceMs;
          const results = await store.hit([hitOf(key, c, step.addend)], noStop);
          const expected = model.hit(clock.ms, step.addend);
          assert.deepEqual([results[0], results[1]], expected, `seed ${seed} step ${i} (${c.params.kind})`);
        }
      }
    } finally {
      await store.close();
    }
  });
});
