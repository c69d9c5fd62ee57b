// Does MEMORY_MAX_BYTES bound the process? `npx tsx bench/memory-bound.ts [maxBytes] [keys]`
// (run with `node --expose-gc --import tsx` for the heap figures). A flood of unique keys with
// hour windows into a memory store of MEMORY_MAX_BYTES (default 32 MiB, so the flood is quick):
// the process's RSS before, its peak while flooding, and after the flood once idle, against the
// setting; and the store's accounted bytes beside the JavaScript heap it holds after a GC (its typed
// arrays are reserved at the bound, so their size says nothing; RSS shows what of them is used).
import { setTimeout as sleep } from 'node:timers/promises';
import { MemoryStore } from '../src/backends/memory.js';

const MAX_BYTES = Number(process.argv[2] ?? 32 * 1024 * 1024);
const KEYS = Number(process.argv[3] ?? 3_000_000);
const NOW_MS = 1_764_068_400_000;
const gc = (globalThis as { gc?: () => void }).gc;
const MB = 1024 * 1024;
const live = () => {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
};

const store = new MemoryStore(
  { stats: { inc: () => {} }, log: { warn: () => {}, error: () => {} }, now: () => NOW_MS, random: () => 0 },
  { maxCounters: 1e9, maxBytes: MAX_BYTES },
);
const plain = { stopIncrementWhenOverLimit: false };
/** KEYS hits, each on a key made anew: unique ones, or ones that repeat 1,000 keys (`repeat`). */
function flood(repeat: boolean, peak: number): number {
  for (let i = 0; i < KEYS; i++) {
    const key = `api_user_${i}_${NOW_MS / 1000}`;
    store.hitAt(
      [
        {
          key: repeat ? `api_user_${key.length}_${i % 1000}` : key,
          addend: 1,
          limit: 1e9,
          unit: 'HOUR',
          divider: 3600,
        },
      ],
      plain,
      NOW_MS,
    );
    if (i % 20_000 === 0) peak = Math.max(peak, process.memoryUsage.rss());
  }
  return peak;
}
// The flood's own garbage (the keys it makes) grows the young generation whatever the store keeps:
// the same flood on repeated keys first puts that growth in the baseline.
flood(true, 0);
const rssBefore = process.memoryUsage.rss();
const liveBefore = live();
const peak = Math.max(flood(false, rssBefore), process.memoryUsage.rss());
const heldLive = live() - liveBefore;
await sleep(5000);
const idle = process.memoryUsage.rss();
const mb = (bytes: number) => (bytes / MB).toFixed(1);
process.stdout.write(
  `MEMORY_MAX_BYTES ${mb(MAX_BYTES)} MiB, ${KEYS.toLocaleString('en-US')} unique keys: ${store.size.toLocaleString('en-US')} counters kept, ` +
    `${mb(store.accountedBytes)} MiB accounted; heap held after GC ${gc ? `${mb(heldLive)} MiB` : 'n/a (no --expose-gc)'}; ` +
    `RSS growth: peak ${mb(peak - rssBefore)} MiB (${((peak - rssBefore) / MAX_BYTES).toFixed(2)}x), idle after 5 s ${mb(idle - rssBefore)} MiB (${((idle - rssBefore) / MAX_BYTES).toFixed(2)}x)\n`,
);
await store.close();
