// The memory store's key lookup, per call: `node --import tsx bench/key-lookup.ts` (a few seconds).
// The keyed hash (HalfSipHash-1-3) beside the seeded multiply-xor it replaced (kept here as the
// yardstick), and a whole KeyIndex.find of a key made per call, as the limiter makes cache keys,
// among 10,000. Medians of 15 interleaved rounds.
import { hashString, KeyIndex } from '../src/backends/key-index.js';
import { multiplyXor } from '../test/helpers/multiply-xor.js';

const KEYS = 10_000;
const ROUNDS = 15;
const WINDOW_START = 1_764_068_400;
const values = Array.from({ length: KEYS }, (_, i) => `user${String(i).padStart(5, '0')}`);
const cacheKey = (i: number) => `ratelimit_api_user_${values[i]}_${WINDOW_START}`;

const index = new KeyIndex(KEYS, 1 << 22);
for (let i = 0; i < KEYS; i++) index.insert(cacheKey(i), i);
let sink = 0;
const measures: Record<string, () => void> = {
  'key made, no lookup': () => {
    for (let i = 0; i < KEYS; i++) sink += cacheKey(i).length;
  },
  'multiply-xor hash': () => {
    for (let i = 0; i < KEYS; i++) sink ^= multiplyXor(cacheKey(i), 0x9e3779b9);
  },
  'HalfSipHash-1-3 hash': () => {
    for (let i = 0; i < KEYS; i++) sink ^= hashString(cacheKey(i), 0x9e3779b9, 0x7f4a7c15);
  },
  'KeyIndex.find (hash, probe, compare)': () => {
    for (let i = 0; i < KEYS; i++) sink += index.find(cacheKey(i));
  },
};
const times = new Map<string, number[]>();
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, measure] of Object.entries(measures)) {
    const started = process.hrtime.bigint();
    for (let repeat = 0; repeat < 20; repeat++) measure();
    const ns = Number(process.hrtime.bigint() - started) / (20 * KEYS);
    times.set(name, [...(times.get(name) ?? []), ns]);
  }
}
process.stdout.write(
  `key length ${cacheKey(0).length}; ns a call, median of ${ROUNDS} rounds (checksum ${sink & 1}):\n`,
);
for (const [name, ns] of times) {
  const median = ns.sort((a, b) => a - b)[ROUNDS >> 1] as number;
  process.stdout.write(`  ${name.padEnd(38)} ${median.toFixed(1)}\n`);
}
