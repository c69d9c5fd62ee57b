import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { type RedisProcess, startRedis } from './redis.js';
import { waitForRedisCli } from './redis-cli.js';

export interface RedisSentinelOptions {
  /** Default 'mymaster'. */
  masterName?: string;
  /** Default 2. */
  sentinels?: number;
  /** Milliseconds without an answer before a sentinel marks the master down; default 1000. */
  downAfterMs?: number;
  /** Sentinel failover-timeout; default 5000. */
  failoverTimeoutMs?: number;
  /** Extra redis-server arguments for master and replica (e.g. ['--requirepass', 'x']). */
  dataArgs?: string[];
  /** Password the sentinels use to reach master and replica (sentinel auth-pass). */
  dataPassword?: string;
  /** Extra sentinel.conf lines (e.g. `requirepass x` to protect the sentinels themselves). */
  sentinelConfig?: string[];
}

export interface RedisSentinelSetup {
  readonly masterName: string;
  master: RedisProcess;
  readonly replica: RedisProcess;
  readonly sentinels: readonly RedisProcess[];
  /** `<master name>,<sentinel1>,<sentinel2>...`, the form REDIS_URL takes for REDIS_TYPE=sentinel. */
  readonly url: string;
  /** Waits until the sentinels report `address` (host:port) as the master. */
  waitForMaster(address: string, timeoutMs?: number): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts a master, one replica of it and `sentinels` sentinels (redis-server --sentinel, so the
 * separate redis-sentinel package is not needed) on free loopback ports. The quorum is 1, so one
 * sentinel can declare the master down; the failover itself still needs a majority of sentinels.
 */
export async function startRedisSentinel(options: RedisSentinelOptions = {}): Promise<RedisSentinelSetup> {
  const masterName = options.masterName ?? 'mymaster';
  const dataArgs = options.dataArgs ?? [];
  const started: RedisProcess[] = [];
  const confDir = await mkdtemp(join(tmpdir(), 'testkit-sentinel-'));
  try {
    const master = await startRedis({ args: dataArgs });
    started.push(master);
    const authArgs = options.dataPassword ? ['--masterauth', options.dataPassword] : [];
    const replica = await startRedis({
      args: [...dataArgs, ...authArgs, '--replicaof', master.host, String(master.port)],
    });
    started.push(replica);
    const auth = options.dataPassword ? ['-a', options.dataPassword, '--no-auth-warning'] : [];
    await waitForRedisCli(replica.port, [...auth, 'info', 'replication'], (info) =>
      info.includes('master_link_status:up'),
    );
    const sentinels: RedisProcess[] = [];
    for (let i = 0; i < (options.sentinels ?? 2); i++) {
      const port = await freePort();
      const configFile = join(confDir, `sentinel-${port}.conf`);
      const lines = [
        `sentinel monitor ${masterName} ${master.host} ${master.port} 1`,
        `sentinel down-after-milliseconds ${masterName} ${options.downAfterMs ?? 1000}`,
        `sentinel failover-timeout ${masterName} ${options.failoverTimeoutMs ?? 5000}`,
        `sentinel parallel-syncs ${masterName} 1`,
        ...(options.dataPassword ? [`sentinel auth-pass ${masterName} ${options.dataPassword}`] : []),
        ...(options.sentinelConfig ?? []),
      ];
      await writeFile(configFile, `${lines.join('\n')}\n`);
      const sentinel = await startRedis({ port, configFile, args: ['--sentinel'] });
      started.push(sentinel);
      sentinels.push(sentinel);
    }
    const setup: RedisSentinelSetup = {
      masterName,
      master,
      replica,
      sentinels,
      url: [masterName, ...sentinels.map((s) => s.address)].join(','),
      async waitForMaster(address, timeoutMs = 20_000) {
        const [host, port] = address.split(':');
        for (const sentinel of sentinels) {
          await waitForRedisCli(
            sentinel.port,
            [...sentinelAuth(options), 'sentinel', 'get-master-addr-by-name', masterName],
            (output) => output.split('\n').join(':') === `${host}:${port}`,
            timeoutMs,
          );
        }
      },
      async stop() {
        await Promise.all(started.map((process) => process.stop()));
        await rm(confDir, { recursive: true, force: true });
      },
    };
    // Each sentinel must have found the others before a failover can be elected.
    for (const sentinel of sentinels) {
      await waitForRedisCli(
        sentinel.port,
        [...sentinelAuth(options), 'sentinel', 'master', masterName],
        (output) => sentinelField(output, 'num-other-sentinels') === String(sentinels.length - 1),
      );
    }
    return setup;
  } catch (error) {
    await Promise.all(started.map((process) => process.stop()));
    await rm(confDir, { recursive: true, force: true });
    throw error;
  }
}

function sentinelAuth(options: RedisSentinelOptions): string[] {
  const line = options.sentinelConfig?.find((entry) => entry.startsWith('requirepass '));
  return line ? ['-a', line.slice('requirepass '.length), '--no-auth-warning'] : [];
}

/** `SENTINEL MASTER` prints alternating field and value lines. */
function sentinelField(output: string, field: string): string | undefined {
  const lines = output.split('\n');
  const at = lines.indexOf(field);
  return at >= 0 ? lines[at + 1] : undefined;
}
