import { type RedisProcess, startRedis } from '@platform/testkit';
import type { CounterHit, StoreDeps } from '../../src/backends/store.js';
import { type Unit, unitSeconds } from '../../src/protocol/units.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

/** Store dependencies that record what the store reports, with a fixed clock and no jitter. */
export function recordingDeps(): StoreDeps & {
  counters: Map<string, number>;
  logged: string[];
} {
  const counters = new Map<string, number>();
  const logged: string[] = [];
  return {
    counters,
    logged,
    stats: { inc: (name, by = 1) => counters.set(name, (counters.get(name) ?? 0) + by) },
    log: {
      warn: (message) => logged.push(`warn: ${message}`),
      error: (message) => logged.push(`error: ${message}`),
    },
    now: () => 1_700_000_000_000,
    random: () => 0,
  };
}

export function hitOf(key: string, addend = 1, limit = 100, unit: Unit = 'MINUTE'): CounterHit {
  return { key, addend, limit, unit, divider: unitSeconds(unit) };
}

/** Polls `condition` every 20 ms until it holds or `timeoutMs` passes (for reconnects, not windows). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`condition not met within ${timeoutMs} ms`);
}

/** A unique key prefix per test, so tests sharing a server never see each other's counters. */
let sequence = 0;
export function uniquePrefix(name: string): string {
  sequence += 1;
  return `${name}_${process.pid}_${sequence}_`;
}

/**
 * Asserts a TTL that Redis reports in whole seconds counting down: it may already have lost a
 * second or two by the time the test reads it, but never exceeds what the store set.
 */
export function assertTtl(reported: string, expectedSeconds: number): void {
  const ttl = Number(reported);
  if (!(ttl <= expectedSeconds && ttl >= expectedSeconds - 2)) {
    throw new Error(`TTL ${reported}, expected ${expectedSeconds} (or up to 2 s less)`);
  }
}

/**
 * A throwaway Redis and the whole service on it (`BACKEND_TYPE=redis` plus `env`, its clock at
 * `startAt`), returned once the service's health check passes.
 */
export async function startServiceOnRedis(
  files: Record<string, string>,
  env: Record<string, string>,
  startAt: number,
): Promise<{ redis: RedisProcess; t: TestServer }> {
  const redis = await startRedis();
  const t = await startTestServer(
    files,
    { BACKEND_TYPE: 'redis', REDIS_URL: redis.address, ...env },
    { startAt },
  );
  await eventually(async () => (await t.get('http', '/healthcheck')).status === 200);
  return { redis, t };
}

/**
 * Data-node arguments for startRedisSentinel: the master starts the replica's first sync at once
 * rather than after Redis' default 5 s wait for more replicas (repl-diskless-sync-delay), which was
 * 5 s of every sentinel setup.
 */
export const IMMEDIATE_REPLICA_SYNC = ['--repl-diskless-sync-delay', '0'];
