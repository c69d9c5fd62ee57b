/**
 * What the synchronous decision path buys: one request decided in-process by the service on the
 * memory store, as it runs (the store answers at once through `hitNow`, no promise) and with the
 * store made to answer through a promise like the network stores. Prints server CPU per decision.
 * Run: npm run bench:shortcuts -w packages/ratelimit
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryStore } from '../src/backends/memory.js';
import type { CounterStore } from '../src/backends/store.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import { readSettings } from '../src/settings.js';
import { StatStore } from '../src/stats/store.js';

const DECISIONS = 300_000;
const ROUNDS = 4;

const root = await mkdtemp(join(tmpdir(), 'ratelimit-shortcuts-'));
await mkdir(join(root, 'ratelimit', 'config'), { recursive: true });
await writeFile(
  join(root, 'ratelimit', 'config', 'bench.yaml'),
  'domain: bench\ndescriptors:\n  - key: client\n    rate_limit: {unit: second, requests_per_unit: 1000000000}\n',
);
const settings = readSettings({
  BACKEND_TYPE: 'memory',
  HOST: '127.0.0.1',
  PORT: '0',
  GRPC_HOST: '127.0.0.1',
  GRPC_PORT: '0',
  DEBUG_HOST: '127.0.0.1',
  DEBUG_PORT: '0',
  RUNTIME_ROOT: root,
  RUNTIME_SUBDIRECTORY: 'ratelimit',
  USE_STATSD: 'false',
});
const store = new MemoryStore(
  { stats: new StatStore(), log: silentLogger, now: () => Math.floor(Date.now() / 1000), random: () => 0 },
  { maxCounters: 1000, maxBytes: 1 << 26 },
);
const server = await startServer(settings, { log: silentLogger, store });
const request = {
  domain: 'bench',
  descriptors: [{ entries: [{ key: 'client', value: 'frontend' }] }],
  hitsAddend: 0,
};

async function nsPerDecision(): Promise<number> {
  const started = process.cpuUsage();
  for (let i = 0; i < DECISIONS; i++) {
    const answer = server.service.shouldRateLimit(request);
    if (answer instanceof Promise) await answer;
  }
  const used = process.cpuUsage(started);
  return ((used.user + used.system) * 1000) / DECISIONS;
}

/** The store as a network store behaves: the same counts, answered through a promise. */
function answerThroughPromise(target: MemoryStore): () => void {
  const writable = target as { -readonly [K in keyof CounterStore]: CounterStore[K] };
  const hitNow = target.hitNow.bind(target);
  writable.hit = (hits, options) => Promise.resolve(hitNow(hits, options, Date.now()));
  writable.hitNow = undefined;
  return () => {
    delete (writable as Partial<CounterStore>).hit;
    delete (writable as Partial<CounterStore>).hitNow;
  };
}

const synchronous: number[] = [];
const promised: number[] = [];
for (let round = 0; round < ROUNDS; round++) {
  synchronous.push(await nsPerDecision());
  const restore = answerThroughPromise(store);
  promised.push(await nsPerDecision());
  restore();
}
await server.close();
await rm(root, { recursive: true, force: true });

const range = (values: number[]) => `${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} ns`;
console.log('| decision path (memory store, in-process, CPU per decision) | measured |');
console.log('|---|---|');
console.log(`| synchronous (\`hitNow\`, as the service runs) | ${range(synchronous)} |`);
console.log(`| through a promise | ${range(promised)} |`);
