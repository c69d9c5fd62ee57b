// Run by test/memory-cost.test.ts as
// `node --expose-gc --min-semi-space-size=1 --max-semi-space-size=1 --import tsx measure-memory-cost.ts <kind> <counters>`:
// fills a memory store with counters of one kind (fixed, sliding or bucket) and prints, as one JSON
// line, what a counter really costs the process (its RSS growth, and the JavaScript heap's part of
// it) beside what the store accounts for it. One kind a process, so no store's memory is left over
// in another's figures.
import { MemoryStore } from '../../src/backends/memory.js';
import type { AlgorithmParams } from '../../src/protocol/algorithm.js';

const COUNTERS = Number(process.argv[3] ?? 500_000);
const NOW_MS = 1_764_068_400_000;
const ALGORITHMS: Record<string, AlgorithmParams | undefined> = {
  fixed: undefined,
  sliding: { kind: 'sliding_window', windowMs: 3_600_000 },
  bucket: { kind: 'token_bucket', windowMs: 3_600_000, rate: 1e9 },
};
const kind = process.argv[2] ?? 'fixed';
if (!(kind in ALGORITHMS)) throw new Error(`kind: one of ${Object.keys(ALGORITHMS).join(', ')}`);
const algorithm = ALGORITHMS[kind];
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');
const settle = () => {
  gc();
  gc();
};
const plain = { stopIncrementWhenOverLimit: false };
const deps = {
  stats: { inc: () => {} },
  log: { warn: () => {}, error: () => {} },
  now: () => NOW_MS,
  random: () => 0,
};
// One hit object, its key made per call: nothing the loop allocates outlives the call, so with the
// young generation held at 1 MB (--max-semi-space-size=1) the heap stays as it was.
const hit = { key: '', addend: 1, limit: 1e9, unit: 'HOUR' as const, divider: 3600, algorithm };
const hits = [hit];
const keyLength = `ratelimit_api_user_${String(0).padStart(8, '0')}_${NOW_MS / 1000}`.length;

function fill(first: number, count: number): MemoryStore {
  const store = new MemoryStore(deps, { maxCounters: 1e9, maxBytes: 1 << 30 });
  for (let i = first; i < first + count; i++) {
    hit.key = `ratelimit_api_user_${String(i).padStart(8, '0')}_${NOW_MS / 1000}`;
    store.hitAt(hits, plain, NOW_MS);
  }
  return store;
}

// The code paths compiled before the measured store, on a small one that stays.
const warm = fill(COUNTERS, 1000);
settle();
const rssBefore = process.memoryUsage.rss();
const heapBefore = process.memoryUsage().heapUsed;
const store = fill(0, COUNTERS);
settle();
if (store.size !== COUNTERS) throw new Error(`${store.size} counters kept of ${COUNTERS}`);
process.stdout.write(
  `${JSON.stringify({
    kind,
    counters: COUNTERS,
    keyLength,
    rssPerCounter: (process.memoryUsage.rss() - rssBefore) / COUNTERS,
    heapPerCounter: (process.memoryUsage().heapUsed - heapBefore) / COUNTERS,
    accountedPerCounter: store.accountedBytes / COUNTERS,
  })}\n`,
);
await Promise.all([store.close(), warm.close()]);
