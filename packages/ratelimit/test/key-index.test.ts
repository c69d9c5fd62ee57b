import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashString, KeyIndex } from '../src/backends/key-index.js';

/** A small deterministic generator, so a failure replays. */
function random(seed: number): (max: number) => number {
  let state = seed;
  return (max) => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return (state >>> 8) % max;
  };
}

test('the key index answers like a Map through inserts and removals, growing and shrinking', () => {
  const slots = 50_000;
  const index = new KeyIndex(slots);
  const model = new Map<string, number>();
  const keyOfSlot: (string | undefined)[] = [];
  const free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
  const next = random(7);
  for (let step = 0; step < 400_000; step++) {
    // Phases that fill up and drain, so the table grows and shrinks and runs wrap around.
    const filling = Math.floor(step / 100_000) % 2 === 0;
    const key = `k${next(60_000)}`;
    const slot = model.get(key);
    assert.equal(index.find(key), slot ?? -1, `step ${step}: ${key}`);
    if (slot === undefined && (filling || next(4) === 0) && free.length > 0) {
      const taken = free.pop() as number;
      index.insert(key, taken);
      model.set(key, taken);
      keyOfSlot[taken] = key;
    } else if (slot !== undefined && (!filling || next(4) === 0)) {
      index.remove(slot);
      model.delete(key);
      free.push(slot);
    }
    assert.equal(index.size, model.size);
  }
  for (const [key, slot] of model) {
    assert.equal(index.find(key), slot);
    assert.equal(index.keyOf(slot), key);
  }
});

test('key hashes depend on a per-index secret seed', () => {
  // The same keys land in different places in each process, so a client cannot build a set of
  // descriptor values that all collide.
  const keys = Array.from({ length: 100 }, (_, i) => `bench_counter_user-${i}@tenant_1764068400`);
  const a = keys.map((key) => hashString(key, 1));
  const b = keys.map((key) => hashString(key, 2));
  assert.equal(a.filter((hash, i) => hash === b[i]).length, 0);
  assert.equal(new Set(a.map((hash) => hash & 1023)).size > 50, true, 'spread over the table');
});
