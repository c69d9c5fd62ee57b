// The memory store's size: `npm run bench:counters -w packages/ratelimit` (about 1–2 min).
// 1. The 1,000,000-counter row of `npm run bench` alone: builds the service like the full bench,
//    starts a memory-store server pinned to the server core, fills it with 1,000,000 live counters
//    through gRPC and prints its RSS (target ≤ 256 MB settled).
// 2. In-process: the bytes a counter takes (heap and array buffers after a full GC, with the
//    bench's 47-byte keys), and a flood of 3,000,000 new keys into a full store of 1,000,000 with
//    a counter over its limit asked about once per 100,000: CPU per million new keys, and whether
//    the counter kept its count.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { freePort } from '@platform/testkit';
import { MemoryStore } from '../src/backends/memory.js';
import type { CounterHit } from '../src/backends/store.js';
import { buildServers, startServerProcess } from './lib/servers.js';
import { fillCounters } from './scenarios/counters.js';

const COUNTERS = 1_000_000;
const LIMIT = 1_000_000_000;
/** The full bench's rule for this row (bench/run.ts): an hourly counter per value. */
const CONFIG = `domain: bench\ndescriptors:\n  - key: counter\n    rate_limit: {unit: hour, requests_per_unit: ${LIMIT}}\n`;
const NOW_MS = 1_764_068_400_000;
const FLOOD = 3_000_000;
const ASK_EVERY = 100_000;

async function serverRss(): Promise<string> {
  const work = await mkdtemp(join(tmpdir(), 'rl-bench-counters-'));
  try {
    await mkdir(join(work, 'ratelimit', 'config'), { recursive: true });
    await writeFile(join(work, 'ratelimit', 'config', 'bench.yaml'), CONFIG);
    await buildServers();
    const [http, grpc, debug] = [await freePort(), await freePort(), await freePort()];
    const server = await startServerProcess({
      name: 'counters',
      script: 'bin/ratelimit',
      ports: [http, grpc, debug],
      env: {
        BACKEND_TYPE: 'memory',
        HOST: '127.0.0.1',
        PORT: String(http),
        GRPC_HOST: '127.0.0.1',
        GRPC_PORT: String(grpc),
        DEBUG_HOST: '127.0.0.1',
        DEBUG_PORT: String(debug),
        RUNTIME_ROOT: work,
        RUNTIME_SUBDIRECTORY: 'ratelimit',
        RUNTIME_WATCH_ROOT: 'false',
        USE_STATSD: 'false',
        LOG_LEVEL: 'warn',
      },
    });
    try {
      const result = await fillCounters(server, grpc, COUNTERS, LIMIT);
      return `${COUNTERS.toLocaleString('en-US')} live counters, memory-store server: ${result.settledRssMb.toFixed(0)} MB RSS settled, ${result.peakRssMb.toFixed(0)} MB peak while filling (idle server ${result.idleRssMb.toFixed(0)} MB; filled in ${result.seconds.toFixed(1)} s; target ≤ 256 MB settled)`;
    } finally {
      await server.stop();
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

function storeOf(maxCounters: number, stats: { inc(): void } = { inc: () => {} }): MemoryStore {
  const deps = {
    stats,
    log: { warn: () => {}, error: () => {} },
    now: () => NOW_MS,
    random: () => 0,
  };
  return new MemoryStore(deps, { maxCounters, maxBytes: 2 ** 40 });
}

const hourly = (key: string, addend = 1, limit = LIMIT): CounterHit => ({
  key,
  addend,
  limit,
  unit: 'HOUR',
  divider: 3600,
});

const plain = { stopIncrementWhenOverLimit: false };

async function bytesPerCounter(): Promise<string> {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const used = () => {
    gc();
    gc();
    const memory = process.memoryUsage();
    return memory.heapUsed + memory.arrayBuffers;
  };
  const before = used();
  const store = storeOf(2 * COUNTERS);
  for (let i = 0; i < COUNTERS; i++) {
    store.hitAt(
      [hourly(`bench_counter_user-${String(i).padStart(10, '0')}@tenant_${NOW_MS / 1000}`)],
      plain,
      NOW_MS,
    );
  }
  const bytes = (used() - before) / COUNTERS;
  await store.close();
  return `in-process: ${bytes.toFixed(1)} bytes a counter (47-byte keys, heap and array buffers after GC)`;
}

async function flood(): Promise<string> {
  let evictions = 0;
  const store = storeOf(COUNTERS, { inc: () => evictions++ });
  const victim = hourly('victim', 11, 10);
  store.hitAt([victim], plain, NOW_MS);
  const perMillion: string[] = [];
  let kept = true;
  let cpu = process.cpuUsage();
  for (let i = 0; i < COUNTERS + FLOOD; i++) {
    store.hitAt([hourly(`flood-${i}`)], plain, NOW_MS);
    if (i % ASK_EVERY === 0) kept &&= store.hitAt([hourly('victim', 0, 10)], plain, NOW_MS)[0] === 11;
    if ((i + 1) % COUNTERS === 0) {
      const used = process.cpuUsage(cpu);
      perMillion.push(((used.user + used.system) / 1e6).toFixed(2));
      cpu = process.cpuUsage();
    }
  }
  await store.close();
  return `in-process flood: ${perMillion.join(' / ')} s CPU per million new keys (the first million fills the store, then ${evictions.toLocaleString('en-US')} evictions); the counter over its limit, asked once per ${ASK_EVERY.toLocaleString('en-US')}, ${kept ? 'kept its count' : 'WAS RESET'}`;
}

const load = loadavg()[0] as number;
process.stdout.write(`load average ${load.toFixed(1)} at start\n`);
process.stdout.write(`${await serverRss()}\n`);
process.stdout.write(`${await bytesPerCounter()}\n`);
process.stdout.write(`${await flood()}\n`);
