import { setTimeout as delay } from 'node:timers/promises';
import { RateLimitClient } from '../../src/client/client.js';
import { measureProcess, rssMb } from '../lib/process-stats.js';
import type { ServerProcess } from '../lib/servers.js';

export interface CountersResult {
  readonly counters: number;
  readonly idleRssMb: number;
  /** The highest RSS while filling: live counters plus the garbage of the requests. */
  readonly peakRssMb: number;
  /** RSS once the filled server has been idle for SETTLE_MS (V8 collects when idle). */
  readonly settledRssMb: number;
  readonly seconds: number;
}

const PER_REQUEST = 100;
export const IN_FLIGHT = 4;
const SETTLE_MS = 3000;

/**
 * Creates `total` live counters in a running memory-store server through gRPC: requests of
 * 100 descriptors `counter=<distinct value>` (an hourly rule), and checks that every one was
 * a fresh counter (remaining = limit - 1). Reads the server's RSS while filling and once settled.
 */
export async function fillCounters(
  server: ServerProcess,
  grpcPort: number,
  total: number,
  limit: number,
): Promise<CountersResult> {
  const client = new RateLimitClient(`127.0.0.1:${grpcPort}`);
  const idleRssMb = rssMb(server.pid);
  const started = performance.now();
  try {
    const [, usage] = await measureProcess(server.pid, async () => {
      let next = 0;
      const worker = async () => {
        while (next < total) {
          const first = next;
          next += PER_REQUEST;
          const descriptors = Array.from({ length: Math.min(PER_REQUEST, total - first) }, (_, i) => ({
            entries: [{ key: 'counter', value: `user-${String(first + i).padStart(10, '0')}@tenant` }],
          }));
          const response = await client.shouldRateLimit({ domain: 'bench', descriptors });
          const statuses = response.statuses as Array<{ limitRemaining: number }>;
          if (statuses.some((status) => status.limitRemaining !== limit - 1)) {
            throw new Error('counters bench: a descriptor did not create a fresh counter');
          }
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
    });
    const seconds = (performance.now() - started) / 1000;
    await delay(SETTLE_MS);
    return {
      counters: total,
      idleRssMb,
      peakRssMb: usage.maxRssMb,
      settledRssMb: rssMb(server.pid),
      seconds,
    };
  } finally {
    client.close();
  }
}
