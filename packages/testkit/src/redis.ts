import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requireBinary } from './binaries.js';
import { freePort, waitForPort } from './ports.js';
import { type ManagedProcess, spawnManaged } from './process.js';

export interface RedisOptions {
  /** Fixed port; a free one is chosen when omitted. */
  port?: number;
  /** Extra `redis-server` arguments, e.g. ['--requirepass', 'secret'] or cluster flags. */
  args?: string[];
  /** Redis executable: 'redis-server' or 'redis-sentinel'. */
  binary?: 'redis-server' | 'redis-sentinel';
  /** A config file to pass as the first argument (sentinel needs one). */
  configFile?: string;
}

export interface RedisProcess {
  host: string;
  port: number;
  /** redis://127.0.0.1:<port> */
  url: string;
  /** host:port, the form envoyproxy/ratelimit settings use. */
  address: string;
  dir: string;
  process: ManagedProcess;
  stop(): Promise<void>;
}

/** Starts a throwaway redis-server on a free loopback port with persistence off. */
export async function startRedis(options: RedisOptions = {}): Promise<RedisProcess> {
  const binary = options.binary ?? 'redis-server';
  const path = requireBinary(binary, 'redis-server');
  if (typeof path !== 'string') throw new Error(path.message);
  const host = '127.0.0.1';
  const port = options.port ?? (await freePort(host));
  const dir = await mkdtemp(join(tmpdir(), 'testkit-redis-'));
  const args = [
    ...(options.configFile ? [options.configFile] : []),
    '--port',
    String(port),
    '--bind',
    host,
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    ...(options.args ?? []),
  ];
  const proc = spawnManaged(path, args);
  try {
    await waitForPort(port, host);
  } catch (error) {
    await proc.stop();
    await rm(dir, { recursive: true, force: true });
    throw new Error(
      `${binary} did not start on ${host}:${port}: ${(error as Error).message}\n${proc.output()}`,
    );
  }
  return {
    host,
    port,
    url: `redis://${host}:${port}`,
    address: `${host}:${port}`,
    dir,
    process: proc,
    async stop() {
      await proc.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
