import type { ConnectionOptions } from 'node:tls';
import { Cluster, Redis, type RedisOptions } from 'ioredis';
import { StoreError } from '../../errors.js';
import { byClient, type DemandEntry, type DemandStore, type DemandWrite } from '../demand.js';
import { reconnectDelayMs } from './link.js';
import type { RedisInstanceSettings } from './settings.js';
import { tlsOptions } from './tls-files.js';

/** The field of a bucket's hash that counts its changes (no client id is without a '/'). */
const VERSION_FIELD = '#version';

/** A bucket's hash outlives its last read by this many entry TTLs, then goes with its bucket. */
const ENTRY_KEY_TTLS = 10;

/**
 * Which instances are alive: a sorted set of instance id → the time of its latest exchange. KEYS:
 * the set. ARGV: now in ms, the liveness TTL in ms, this instance's id. Marks this instance alive,
 * drops those silent for a TTL, and replies with the live ids in order. The time is the caller's
 * clock: the instances sharing a store should keep their clocks within a small part of the TTL.
 */
const HEARTBEAT_SCRIPT = `
local now = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return redis.call('ZRANGE', KEYS[1], 0, -1)
`;

/**
 * KEYS: buckets' hashes, client id → requests per second, and VERSION_FIELD, bumped by every
 * change. ARGV: the key TTL in ms, the number of live instances and their ids, then for each key in
 * order the version the caller holds ('' for none), the number of its writes and that many client
 * and demand pairs. For each key, writes its pairs, and replies with nothing when the version is
 * the caller's, otherwise with the version and the entries of live instances (a client id is
 * `<instance id>/<stream>`); entries of instances no longer alive are deleted.
 */
const EXCHANGE_SCRIPT = `
local ttl = ARGV[1]
local live = {}
local liveCount = tonumber(ARGV[2])
for i = 1, liveCount do live[ARGV[2 + i]] = true end
local arg = 3 + liveCount
local replies = {}
for k = 1, #KEYS do
  local key = KEYS[k]
  local known = ARGV[arg]
  local count = tonumber(ARGV[arg + 1])
  arg = arg + 2
  local changed = false
  for i = 1, count do
    if redis.call('HGET', key, ARGV[arg]) ~= ARGV[arg + 1] then
      redis.call('HSET', key, ARGV[arg], ARGV[arg + 1])
      changed = true
    end
    arg = arg + 2
  end
  local version = changed and redis.call('HINCRBY', key, '${VERSION_FIELD}', 1)
    or redis.call('HGET', key, '${VERSION_FIELD}')
  version = tostring(version or '')
  if version == known then
    replies[k] = {}
  else
    local all = redis.call('HGETALL', key)
    local entries = { '' }
    local removed = false
    for i = 1, #all, 2 do
      local field = all[i]
      if field ~= '${VERSION_FIELD}' then
        local instance = string.match(field, '^(.*)/[^/]*$')
        if instance and live[instance] then
          entries[#entries + 1] = field
          entries[#entries + 1] = all[i + 1]
        else
          redis.call('HDEL', key, field)
          removed = true
        end
      end
    end
    if removed then version = tostring(redis.call('HINCRBY', key, '${VERSION_FIELD}', 1)) end
    entries[1] = version
    replies[k] = entries
  end
  if version ~= '' then redis.call('PEXPIRE', key, ttl) end
end
return replies
`;

/** KEYS: one bucket's hash. ARGV: client ids. Deletes them and bumps the version if any was there. */
const REMOVE_SCRIPT = `
if redis.call('HDEL', KEYS[1], unpack(ARGV)) > 0 then
  redis.call('HINCRBY', KEYS[1], '${VERSION_FIELD}', 1)
end
return 0
`;

/**
 * Buckets per script call where every key lives on one server: one call a rebalance for a few
 * hundred buckets, and no call holds Redis for long. A cluster gets one call per bucket, since
 * the keys of one call must share a slot.
 */
const BUCKETS_PER_CALL = 200;

/**
 * A write that moves a client's demand by less than this fraction of what the store holds for it
 * is not sent: the shares follow demand to within it, and a steady client costs no write. The
 * service answers reports from the shares in force until demand moves by twice this.
 */
const WRITE_TOLERANCE = 0.05;

/** A bucket hash's whole content is read again at least this often, whatever its version says. */
const FULL_READ_EVERY_MS = 30_000;

/** What this instance knows of one bucket's hash. */
interface Known {
  version: string;
  entries: DemandEntry[];
  /** This instance's clients' demand as last written, by client id. */
  written: Map<string, number>;
  /** When the entries were last read in full. */
  readAtMs: number;
  /** When an exchange last read it: a bucket this instance no longer reads is forgotten. */
  seenAtMs: number;
}

type ExchangeCommand = (keyCount: number, ...keysAndArgs: string[]) => Promise<(string | null)[][]>;
type SmallCommand = (keyCount: number, ...keysAndArgs: string[]) => Promise<unknown>;

/**
 * RLQS demand in Redis (REDIS_URL's deployment: single, sentinel or cluster), so every service
 * instance on the same Redis shares out the same clients' demand. One hash per bucket, read and
 * written by a script call for up to BUCKETS_PER_CALL buckets (one per bucket in a cluster, which
 * routes it by the key's slot); ioredis sends the calls of one exchange as one pipeline.
 *
 * Steady demand costs next to nothing: a write within WRITE_TOLERANCE of what the store holds is
 * not sent, and a bucket whose version has not moved since this instance read it comes back as
 * nothing, the entries taken from what this instance read before. Entries do not expire
 * one by one: each instance marks itself alive on every exchange (a sorted set, HEARTBEAT_SCRIPT),
 * and the entries of an instance silent for the TTL are dropped when their bucket is next read in
 * full, which a change in the live instances forces. A hash that lost this instance's entries
 * (Redis restarted, a failover without them) is written in full again on the next exchange.
 *
 * `write` only holds its entries: they go with the next exchange, or a third of their TTL after
 * the first was held when no exchange comes sooner. An exchange's own writes hold every client of
 * this instance for the buckets it reads, so the held entries of those buckets are dropped, not
 * sent.
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
  private readonly known = new Map<string, Known>();
  /** The live instances of the previous exchange, joined: a change forces a full read of every bucket. */
  private liveInstances = '';

  constructor(
    settings: RedisInstanceSettings,
    private readonly keyPrefix: string,
    private readonly instanceId: string,
  ) {
    this.client = openClient(settings, tlsOptions(settings.tls, settings.label));
    this.client.defineCommand('rlqsHeartbeat', { lua: HEARTBEAT_SCRIPT });
    this.client.defineCommand('rlqsExchange', { lua: EXCHANGE_SCRIPT });
    this.client.defineCommand('rlqsRemove', { lua: REMOVE_SCRIPT });
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
    const pairsOf = this.changedPairs(this.takeHeld(read).concat(writes), read);
    const buckets = [...pairsOf.keys()];
    try {
      const live = (await this.command<SmallCommand>('rlqsHeartbeat')(
        1,
        `${this.keyPrefix}instances`,
        String(nowMs),
        String(ttlMs),
        this.instanceId,
      )) as string[];
      const liveInstances = live.join('\n');
      if (liveInstances !== this.liveInstances) {
        this.liveInstances = liveInstances;
        for (const known of this.known.values()) known.version = '';
      }
      const exchange = this.command<ExchangeCommand>('rlqsExchange');
      const calls: Promise<(string | null)[][]>[] = [];
      for (let start = 0; start < buckets.length; start += this.bucketsPerCall) {
        const batch = buckets.slice(start, start + this.bucketsPerCall);
        const args = [String(ttlMs * ENTRY_KEY_TTLS), String(live.length), ...live];
        for (const bucket of batch) {
          const pairs = pairsOf.get(bucket) as string[];
          args.push(this.versionToSend(bucket, nowMs), String(pairs.length / 2), ...pairs);
        }
        calls.push(exchange(batch.length, ...batch.map((bucket) => this.keyPrefix + bucket), ...args));
      }
      const replies = (await Promise.all(calls)).flat();
      buckets.forEach((bucket, i) => {
        this.learn(bucket, pairsOf.get(bucket) as string[], replies[i] as string[], nowMs);
      });
      this.forgetUnread(nowMs);
      return read.map((bucket) => this.known.get(bucket)?.entries ?? []);
    } catch (error) {
      // What was written is no longer known to be there: the next exchange writes it all again.
      for (const bucket of buckets) this.known.delete(bucket);
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

  /**
   * Per bucket (those of `read` first), the client and demand pairs to send: the writes that move
   * a client's demand by more than WRITE_TOLERANCE from what this instance last wrote.
   */
  private changedPairs(writes: readonly DemandWrite[], read: readonly string[]): Map<string, string[]> {
    const pairsOf = new Map<string, string[]>();
    for (const bucket of read) pairsOf.set(bucket, []);
    for (const write of writes) {
      const written = this.known.get(write.bucket)?.written.get(write.client);
      if (
        written !== undefined &&
        Math.abs(write.perSecond - written) <= WRITE_TOLERANCE * Math.max(written, 1)
      ) {
        if (!pairsOf.has(write.bucket)) pairsOf.set(write.bucket, []);
        continue;
      }
      let pairs = pairsOf.get(write.bucket);
      if (!pairs) {
        pairs = [];
        pairsOf.set(write.bucket, pairs);
      }
      pairs.push(write.client, String(write.perSecond));
    }
    return pairsOf;
  }

  /** Drops what is known of buckets no exchange has read for two full-read periods (abandoned ones). */
  private forgetUnread(nowMs: number): void {
    for (const [bucket, known] of this.known) {
      if (nowMs - known.seenAtMs > 2 * FULL_READ_EVERY_MS) this.known.delete(bucket);
    }
  }

  /** The version this instance holds of `bucket`, or '' to have it read in full. */
  private versionToSend(bucket: string, nowMs: number): string {
    const known = this.known.get(bucket);
    if (!known || nowMs - known.readAtMs >= FULL_READ_EVERY_MS) return '';
    return known.version;
  }

  /** Records what an exchange wrote to `bucket` and what it replied. */
  private learn(bucket: string, pairs: readonly string[], reply: readonly string[], nowMs: number): void {
    let known = this.known.get(bucket);
    if (!known) {
      known = { version: '', entries: [], written: new Map(), readAtMs: 0, seenAtMs: nowMs };
      this.known.set(bucket, known);
    }
    known.seenAtMs = nowMs;
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      known.written.set(pairs[i] as string, Number(pairs[i + 1]));
    }
    if (reply.length === 0) return;
    known.version = reply[0] as string;
    known.entries = entriesOf(reply, 1);
    known.readAtMs = nowMs;
    // A client of this instance written before but missing now (the hash was lost): written again next time.
    const present = new Set(known.entries.map((entry) => entry.client));
    for (const client of known.written.keys()) if (!present.has(client)) known.written.delete(client);
  }

  private command<Command>(name: string): Command {
    const client = this.client as unknown as Record<string, Command>;
    return (client[name] as unknown as (...args: unknown[]) => unknown).bind(this.client) as Command;
  }

  async remove(entries: ReadonlyArray<{ readonly bucket: string; readonly client: string }>): Promise<void> {
    // A held write of a client that is gone must not bring its demand back.
    const gone = new Set(entries.map(({ bucket, client }) => `${bucket}\n${client}`));
    this.held = this.held.map((writes) =>
      writes.filter((write) => !gone.has(`${write.bucket}\n${write.client}`)),
    );
    const clientsOf = new Map<string, string[]>();
    for (const { bucket, client } of entries) {
      this.known.get(bucket)?.written.delete(client);
      clientsOf.set(bucket, [...(clientsOf.get(bucket) ?? []), client]);
    }
    const remove = this.command<SmallCommand>('rlqsRemove');
    try {
      await Promise.all(
        [...clientsOf].map(([bucket, clients]) => remove(1, this.keyPrefix + bucket, ...clients)),
      );
    } catch (error) {
      throw new StoreError(`rlqs demand removal failed: ${(error as Error).message}`, { cause: error });
    }
  }

  async close(): Promise<void> {
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.held = [];
    this.known.clear();
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** The client and demand pairs of `flat` from index `from`, sorted by client. */
function entriesOf(flat: readonly string[], from: number): DemandEntry[] {
  const entries: DemandEntry[] = [];
  for (let i = from; i + 1 < flat.length; i += 2) {
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
