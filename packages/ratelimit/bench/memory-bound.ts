// Does MEMORY_MAX_BYTES bound the process? `npx tsx bench/memory-bound.ts [maxBytes] [keys]`
// (run with `node --expose-gc --import tsx` for the heap figures). A flood of unique keys with
// hour windows into a memory store of MEMORY_MAX_BYTES (default 32 MiB, so the flood is quick):
// the process's RSS before, its peak while flooding, and after the flood once idle, against the
// setting; and the store's accounted bytes against the heap and array buffers it holds after a GC.
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
  const memory = process.memoryUsage();
  return memory.heapUsed + memory.arrayBuffers;
};

const rssBefore = process.memoryUsage.rss();
const liveBefore = live();
const store = new MemoryStore(
  { stats: { inc: () => {} }, log: { warn: () => {}, error: () => {} }, now: () => NOW_MS, random: () => 0 },
  { maxCounters: 1e9, maxBytes: MAX_BYTES },
);
let peak = rssBefore;
const plain = { stopIncrementWhenOverLimit: false };
for (let i = 0; i < KEYS; i++) {
  store.hitAt(
    [{ key: `api_user_${i}_${NOW_MS / 1000}`, addend: 1, limit: 1e9, unit: 'HOUR', divider: 3600 }],
    plain,
    NOW_MS,
  );
  if (i % 20_000 === 0) peak = Math.max(peak, process.memoryUsage.rss());
}
peak = Math.max(peak, process.memoryUsage.rss());
const heldLive = live() - liveBefore;
await sleep(5000);
const idle = process.memoryUsage.rss();
const mb = (bytes: number) => (bytes / MB).toFixed(1);
process.stdout.write(
  `MEMORY_MAX_BYTES ${mb(MAX_BYTES)} MiB, ${KEYS.toLocaleString('en-US')} unique keys: ${store.size.toLocaleString('en-US')} counters kept, ` +
    `${mb(store.accountedBytes)} MiB accounted; heap + array buffers held after GC ${gc ? `${mb(heldLive)} MiB` : 'n/a (no --expose-gc)'}; ` +
    `RSS growth: peak ${mb(peak - rssBefore)} MiB (${((peak - rssBefore) / MAX_BYTES).toFixed(2)}x), idle after 5 s ${mb(idle - rssBefore)} MiB (${((idle - rssBefore) / MAX_BYTES).toFixed(2)}x)\n`,
);
await store.close();
