import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashString, KeyIndex } from '../src/backends/key-index.js';
import { multiplyXor } from './helpers/multiply-xor.js';

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
  const index = new KeyIndex(slots, 1 << 21);
  const model = new Map<string, number>();
  const keyOfSlot: (string | undefined)[] = [];
  const free = Array.from({ length: slots }, (_, i) => slots - 1 - i);
  const next = random(7);
  for (let step = 0; step < 400_000; step++) {
    // Phases that fill up and drain, so the table grows and shrinks and runs wrap around.
    const filling = Math.floor(step / 100_000) % 2 === 0;
    // One key in seven is kept at two bytes a character; the arena is packed as its store does.
    const drawn = next(60_000);
    const key = drawn % 7 === 0 ? `\u4e2d${drawn}` : `k${drawn}`;
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
      if (index.keyBytesReclaimable > 1 << 18) index.compactKeys();
    }
    assert.equal(index.size, model.size);
  }
  for (const [key, slot] of model) {
    assert.equal(index.find(key), slot);
    assert.equal(index.keyOf(slot), key);
  }
});

test('key hashes depend on a per-index secret key', () => {
  // The same keys land in different places in each process, so a client cannot build a set of
  // descriptor values that all collide.
  const keys = Array.from({ length: 100 }, (_, i) => `bench_counter_user-${i}@tenant_1764068400`);
  const a = keys.map((key) => hashString(key, 1, 2));
  const b = keys.map((key) => hashString(key, 1, 3));
  const c = keys.map((key) => hashString(key, 4, 2));
  assert.equal(a.filter((hash, i) => hash === b[i] || hash === c[i]).length, 0);
  assert.equal(new Set(a.map((hash) => hash & 1023)).size > 50, true, 'spread over the table');
});

test('the key hash is HalfSipHash-1-3 of the key bytes (Latin-1, else UTF-16LE with v1 tweaked)', () => {
  // From a reference written from the SipHash paper in Python, whose HalfSipHash-2-4 gives the
  // published first vector (a9 35 9f 5b for the empty message under key 00..07).
  const [k0, k1] = [0x03020100, 0x07060504];
  assert.equal(hashString('', k0, k1), 1477757078);
  assert.equal(hashString('a', k0, k1), 4217696294);
  assert.equal(hashString('abcd', k0, k1), 154581159);
  assert.equal(hashString('abcde', k0, k1), 2225295830);
  assert.equal(hashString('bench_counter_user-0000000001@tenant_1764068400', k0, k1), 205407706);
  assert.equal(hashString('é€x', k0, k1), 141702137);
  assert.equal(hashString('ĀĀĀ', k0, k1), 775867835);
});

test('keys built to collide under the old multiply-xor hash keep short probes under the keyed hash', () => {
  // A client that knows the hash function and its seed picks descriptor values that all share one
  // home position in the index's table (low 12 bits), so every insertion and lookup walks the
  // whole run. The keyed hash's key is random per process, so the same values spread out.
  const seed = 0x9e3779b9;
  const target = multiplyXor('user_0', seed) & 4095;
  const colliding: string[] = [];
  for (let i = 0; colliding.length < 400; i++) {
    const key = `api_user_${i.toString(36)}_1764068400`;
    if ((multiplyXor(key, seed) & 4095) === target) colliding.push(key);
  }
  // Under the old hash, the 400 keys form one probe run of 400 in any table up to 4,096 slots.
  assert.equal(new Set(colliding.map((key) => multiplyXor(key, seed) & 1023)).size, 1);
  const index = new KeyIndex(colliding.length, 1 << 16);
  colliding.forEach((key, slot) => {
    index.insert(key, slot);
  });
  colliding.forEach((key, slot) => {
    assert.equal(index.find(key), slot);
  });
  // 400 keys in 1,024 positions: random hashing gives runs of a few; 24 is far beyond chance.
  assert.ok(index.longestProbe() < 24, `longest probe ${index.longestProbe()}`);
});
