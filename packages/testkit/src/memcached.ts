import { requireBinary } from './binaries.js';
import { freePort, waitForPort } from './ports.js';
import { type ManagedProcess, spawnManaged } from './process.js';

export interface MemcachedProcess {
  host: string;
  port: number;
  /** host:port */
  address: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts a throwaway memcached on a free loopback port. */
export async function startMemcached(args: string[] = []): Promise<MemcachedProcess> {
  const path = requireBinary('memcached', 'memcached');
  if (typeof path !== 'string') throw new Error(path.message);
  const host = '127.0.0.1';
  const port = await freePort(host);
  // -U 0 turns UDP off; -u root is needed because memcached refuses to run as root otherwise.
  const runAs = process.getuid?.() === 0 ? ['-u', 'root'] : [];
  const proc = spawnManaged(path, ['-l', host, '-p', String(port), '-U', '0', '-m', '64', ...runAs, ...args]);
  try {
    await waitForPort(port, host);
  } catch (error) {
    await proc.stop();
    throw new Error(
      `memcached did not start on ${host}:${port}: ${(error as Error).message}\n${proc.output()}`,
    );
  }
  return { host, port, address: `${host}:${port}`, process: proc, stop: () => proc.stop() };
}
