import { freePort } from './ports.js';
import { type RedisProcess, startRedis } from './redis.js';
import { redisCli, waitForRedisCli } from './redis-cli.js';

export interface RedisCluster {
  readonly nodes: readonly RedisProcess[];
  /** `host:port,host:port,...`, the form REDIS_URL takes for REDIS_TYPE=cluster. */
  readonly addresses: string;
  stop(): Promise<void>;
}

/**
 * Starts a Redis Cluster of `masters` master nodes (no replicas) on free loopback ports, assigns
 * all 16384 slots with `redis-cli --cluster create`, and waits until every node reports
 * cluster_state:ok.
 */
export async function startRedisCluster(
  options: { masters?: number; args?: string[] } = {},
): Promise<RedisCluster> {
  const count = options.masters ?? 3;
  const nodes: RedisProcess[] = [];
  try {
    for (let i = 0; i < count; i++) {
      nodes.push(
        await startRedis({
          args: [
            '--cluster-enabled',
            'yes',
            '--cluster-config-file',
            'nodes.conf',
            '--cluster-port',
            String(await freePort()),
            '--cluster-node-timeout',
            '2000',
            ...(options.args ?? []),
          ],
        }),
      );
    }
    const first = nodes[0] as RedisProcess;
    await redisCli(first.port, [
      '--cluster',
      'create',
      ...nodes.map((node) => node.address),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const node of nodes) {
      await waitForRedisCli(node.port, ['cluster', 'info'], (info) => info.includes('cluster_state:ok'));
    }
  } catch (error) {
    await Promise.all(nodes.map((node) => node.stop()));
    throw error;
  }
  return {
    nodes,
    addresses: nodes.map((node) => node.address).join(','),
    stop: async () => {
      await Promise.all(nodes.map((node) => node.stop()));
    },
  };
}
