// The Redis counter store alone, next to ioredis doing the same work, in one run:
// `npm run bench:store -w packages/ratelimit` (about 20 s). 64 callers each send one
// INCRBY + EXPIRE pair after another for STORE_SECONDS (default 3) against a throwaway
// redis-server; the table gives pairs per second and this process's CPU per pair.
import { startRedis } from '@platform/testkit';
import { Redis } from 'ioredis';
import { createRedisStore, readRedisSettings } from '../src/backends/redis/index.js';
import type { CounterHit } from '../src/backends/store.js';

const SECONDS = Number(process.env.STORE_SECONDS ?? 3);
const CALLERS = 64;
const KEY = 'bench_client_frontend_1700000000';
const HIT: CounterHit[] = [{ key: KEY, addend: 1, limit: 1e9, unit: 'SECOND', divider: 1 }];

interface LoopResult {
  readonly name: string;
  readonly pairsPerSecond: number;
  readonly cpuMicrosPerPair: number;
}

/** Runs `CALLERS` loops of `call` for SECONDS and measures the rate and this process's CPU. */
async function loop(name: string, call: () => Promise<unknown>): Promise<LoopResult> {
  await call();
  let done = 0;
  let running = true;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const callers = Array.from({ length: CALLERS }, async () => {
    while (running) {
      await call();
      done++;
    }
  });
  await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
  running = false;
  await Promise.all(callers);
  const cpu = process.cpuUsage(cpuBefore);
  const seconds = (performance.now() - started) / 1000;
  return { name, pairsPerSecond: done / seconds, cpuMicrosPerPair: (cpu.user + cpu.system) / done };
}

async function storeLoop(name: string, redisUrl: string, env: NodeJS.ProcessEnv): Promise<LoopResult> {
  const store = createRedisStore(
    readRedisSettings({ REDIS_URL: redisUrl, ...env }),
    {
      stats: { inc: () => {} },
      log: { warn: (message) => process.stderr.write(`${message}\n`), error: () => {} },
      now: () => 1_700_000_000_000,
      random: () => 0,
    },
    0,
  );
  try {
    return await loop(name, () => store.hit(HIT, { stopIncrementWhenOverLimit: false }));
  } finally {
    await store.close();
  }
}

/** The peer: ioredis with auto-pipelining, which sends the commands of one tick in one write. */
async function ioredisLoop(port: number): Promise<LoopResult> {
  const client = new Redis({ port, host: '127.0.0.1', enableAutoPipelining: true });
  try {
    return await loop('ioredis, auto-pipelining (peer)', () =>
      Promise.all([client.incrby(KEY, 1), client.expire(KEY, 1)]),
    );
  } finally {
    client.disconnect();
  }
}

const redis = await startRedis();
try {
  const peer = await ioredisLoop(redis.port);
  const rows = [
    peer,
    await storeLoop('store, REDIS_PIPELINE_WINDOW=150us', redis.address, { REDIS_PIPELINE_WINDOW: '150us' }),
    await storeLoop('store, default settings (a leased connection per call)', redis.address, {}),
  ];
  const lines = [
    `Redis store alone, ${CALLERS} callers, ${SECONDS} s each, one INCRBY + EXPIRE pair per call.`,
    'Command: `npm run bench:store -w packages/ratelimit`',
    '',
    '| loop | pairs/s | CPU µs per pair | rate vs peer |',
    '|---|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${Math.round(row.pairsPerSecond)} | ${row.cpuMicrosPerPair.toFixed(1)} | ${(row.pairsPerSecond / peer.pairsPerSecond).toFixed(2)} |`,
    ),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
} finally {
  await redis.stop();
}
