import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { StoreError } from '../../errors.js';
import { byClient, type DemandEntry, type DemandStore, type DemandWrite } from '../demand.js';
import { reconnectDelayMs } from './link.js';
import type { RedisInstanceSettings } from './settings.js';
import { tlsOptions } from './tls-files.js';

/**
 * KEYS: buckets' hashes, client id → `<requests per second>:<expiry in ms>`. ARGV: now in ms, the
 * entries' TTL in ms, then for each key in order the number of its writes and that many client
 * and demand pairs. For each key, writes its pairs, drops the expired entries, and replies with
 * the live ones as a flat list of client, demand (one list per key). The time is the caller's
 * clock: the instances sharing a store should keep their clocks within a small part of the TTL.
 */
const EXCHANGE_SCRIPT = `
local now = tonumber(ARGV[1])
local ttl = tonumber(ARGV[2])
local arg = 3
local replies = {}
for k = 1, #KEYS do
  local key = KEYS[k]
  local count = tonumber(ARGV[arg])
  arg = arg + 1
  for i = 1, count do
    redis.call('HSET', key, ARGV[arg], ARGV[arg + 1] .. ':' .. (now + ttl))
    arg = arg + 2
  end
  local all = redis.call('HGETALL', key)
  local live = {}
  for i = 1, #all, 2 do
    local value = all[i + 1]
    local at = string.find(value, ':', 1, true)
    if at == nil or tonumber(string.sub(value, at + 1)) <= now then
      redis.call('HDEL', key, all[i])
    else
      live[#live + 1] = all[i]
      live[#live + 1] = string.sub(value, 1, at - 1)
    end
  end
  if count > 0 and redis.call('PTTL', key) < ttl then
    redis.call('PEXPIRE', key, ttl)
  end
  replies[k] = live
end
return replies
`;

/**
 * Buckets per script call where every key lives on one server: one call a rebalance for a few
 * hundred buckets, and no call holds Redis for long. A cluster gets one call per bucket, since
 * the keys of one call must share a slot.
 */
const BUCKETS_PER_CALL = 200;

type ExchangeCommand = (keyCount: number, ...keysAndArgs: string[]) => Promise<string[][]>;

/**
 * RLQS demand in Redis (REDIS_URL's deployment: single, sentinel or cluster), so every service
 * instance on the same Redis shares out the same clients' demand. One hash per bucket, read and
 * written by a script call for up to BUCKETS_PER_CALL buckets (one per bucket in a cluster, which
 * routes it by the key's slot); ioredis sends the calls of one exchange as one pipeline.
 *
 * `write` only holds its entries: they go with the next exchange, or a third of their TTL after
 * the first was held when no exchange comes sooner. An exchange's own writes hold every client of
 * this instance for the buckets it reads, so the held entries of those buckets are dropped, not
 * sent; the rebalance, every RLQS_REBALANCE_INTERVAL, reads every bucket. A report then costs no
 * Redis command of its own.
 */
export class RedisDemandStore implements DemandStore {
  readonly shared = true;
  private readonly client: Redis | Cluster;
  /** Held writes, as `write` was given them. */
  private held: (readonly DemandWrite[])[] = [];
  private heldTimer: NodeJS.Timeout | undefined;
  /** The clock of the latest held write. */
  private heldAtMs = 0;
  private readonly bucketsPerCall: number;

  constructor(
    settings: RedisInstanceSettings,
    private readonly keyPrefix: string,
  ) {
    this.client = openClient(settings, tlsOptions(settings.tls, settings.label));
    this.client.defineCommand('rlqsExchange', { lua: EXCHANGE_SCRIPT });
    this.bucketsPerCall = this.client instanceof Cluster ? 1 : BUCKETS_PER_CALL;
    // Without a listener ioredis throws connection errors from its emitter; calls report them.
    this.client.on('error', () => undefined);
  }

  async exchange(
    writes: readonly DemandWrite[],
    read: readonly string[],
    nowMs: number,
    ttlMs: number,
  ): Promise<DemandEntry[][]> {
    const pairsOf = writtenPairs(this.takeHeld(read).concat(writes), read);
    const buckets = [...pairsOf.keys()];
    const exchange = this.command();
    try {
      const calls: Promise<string[][]>[] = [];
      for (let start = 0; start < buckets.length; start += this.bucketsPerCall) {
        const batch = buckets.slice(start, start + this.bucketsPerCall);
        const args = [String(nowMs), String(ttlMs)];
        for (const bucket of batch) {
          const pairs = pairsOf.get(bucket) as string[];
          args.push(String(pairs.length / 2), ...pairs);
        }
        calls.push(exchange(batch.length, ...batch.map((bucket) => this.keyPrefix + bucket), ...args));
      }
      const replies = (await Promise.all(calls)).flat();
      const byBucket = new Map(buckets.map((bucket, i) => [bucket, replies[i] as string[]]));
      return read.map((bucket) => entriesOf(byBucket.get(bucket) ?? []));
    } catch (error) {
      throw new StoreError(`rlqs demand exchange failed: ${(error as Error).message}`, { cause: error });
    }
  }

  write(writes: readonly DemandWrite[], nowMs: number, ttlMs: number): Promise<void> {
    this.heldAtMs = nowMs;
    this.held.push(writes);
    if (!this.heldTimer) {
      this.heldTimer = setTimeout(() => {
        this.heldTimer = undefined;
        // A failed flush loses nothing the next rebalance does not write again.
        this.exchange([], [], this.heldAtMs, ttlMs).catch(() => undefined);
      }, ttlMs / 3);
      this.heldTimer.unref();
    }
    return Promise.resolve();
  }

  /** The held writes of buckets not in `read` (whose writes the exchange brings itself), and nothing held any more. */
  private takeHeld(read: readonly string[]): DemandWrite[] {
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    const held = this.held;
    this.held = [];
    const superseded = new Set(read);
    const kept: DemandWrite[] = [];
    for (const writes of held) {
      for (const write of writes) if (!superseded.has(write.bucket)) kept.push(write);
    }
    return kept;
  }

  private command(): ExchangeCommand {
    const client = this.client as unknown as { rlqsExchange: ExchangeCommand };
    return client.rlqsExchange.bind(this.client);
  }

  async remove(entries: ReadonlyArray<{ readonly bucket: string; readonly client: string }>): Promise<void> {
    // A held write of a client that is gone must not bring its demand back.
    const gone = new Set(entries.map(({ bucket, client }) => `${bucket}\n${client}`));
    this.held = this.held.map((writes) =>
      writes.filter((write) => !gone.has(`${write.bucket}\n${write.client}`)),
    );
    try {
      await Promise.all(
        entries.map(({ bucket, client }) => this.client.hdel(this.keyPrefix + bucket, client)),
      );
    } catch (error) {
      throw new StoreError(`rlqs demand removal failed: ${(error as Error).message}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.held = [];
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** Per bucket (those of `read` first), the client and demand pairs to write. */
function writtenPairs(writes: readonly DemandWrite[], read: readonly string[]): Map<string, string[]> {
  const pairsOf = new Map<string, string[]>();
  for (const bucket of read) pairsOf.set(bucket, []);
  for (const write of writes) {
    let pairs = pairsOf.get(write.bucket);
    if (!pairs) {
      pairs = [];
      pairsOf.set(write.bucket, pairs);
    }
    pairs.push(write.client, String(write.perSecond));
  }
  return pairsOf;
}

function entriesOf(flat: readonly string[]): DemandEntry[] {
  const entries: DemandEntry[] = [];
  for (let i = 0; i + 1 < flat.length; i += 2) {
    entries.push({ client: flat[i] as string, perSecond: Number(flat[i + 1]) });
  }
  return entries.sort(byClient);
}

function openClient(settings: RedisInstanceSettings, tls: ConnectionOptions | undefined): Redis | Cluster {
  const options: RedisOptions = {
    ...(settings.auth?.username !== undefined ? { username: settings.auth.username } : {}),
    ...(settings.auth ? { password: settings.auth.password } : {}),
    ...(tls ? { tls } : {}),
    ...(settings.timeoutMs > 0
      ? { connectTimeout: settings.timeoutMs, commandTimeout: settings.timeoutMs }
      : {}),
    retryStrategy: reconnectDelayMs,
    enableAutoPipelining: true,
  };
  if (settings.type === 'cluster') {
    return new Cluster(
      settings.nodes.map((node) => ({ host: node.host, port: node.port })),
      { redisOptions: options, clusterRetryStrategy: reconnectDelayMs, enableAutoPipelining: true },
    );
  }
  if (settings.type === 'sentinel') {
    return new Redis({
      ...options,
      sentinels: settings.nodes.map((node) => ({ host: node.host, port: node.port })),
      name: settings.sentinelMasterName as string,
      ...(settings.sentinelAuth ? { sentinelPassword: settings.sentinelAuth.password } : {}),
    });
  }
  if (settings.socketPath !== undefined) return new Redis({ ...options, path: settings.socketPath });
  const node = settings.nodes[0] as { host: string; port: number };
  return new Redis({ ...options, host: node.host, port: node.port });
}
