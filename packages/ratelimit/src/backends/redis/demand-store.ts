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
 * Marks this instance alive in the sorted set KEYS[1] (instance id → the time of its latest
 * exchange) and drops those silent for a TTL. ARGV: now in ms, the liveness TTL in ms, this
 * instance's id. Sets `liveIds`, the live ids in order. The time is the caller's clock: the
 * instances sharing a store should keep their clocks within a small part of the TTL.
 */
const HEARTBEAT = `
local now = tonumber(ARGV[1])
redis.call('ZADD', KEYS[1], now, ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - tonumber(ARGV[2]))
redis.call('PEXPIRE', KEYS[1], ARGV[2])
local liveIds = redis.call('ZRANGE', KEYS[1], 0, -1)
`;

/** HEARTBEAT alone, replying with the live ids: a cluster's first call of an exchange. */
const HEARTBEAT_SCRIPT = `${HEARTBEAT}return liveIds
`;

/**
 * For each bucket hash KEYS[firstKey..] (client id → requests per second, and VERSION_FIELD,
 * bumped by every change), with ARGV from `arg` on: the version the caller holds ('' for none),
 * the number of its writes and that many client and demand pairs. Writes the pairs, and adds to
 * `replies` nothing when the hash has a version and it is the caller's (unless `fresh`), otherwise
 * the version and the entries of `live` instances (a client id is `<instance id>/<stream>`), so a
 * hash that vanished is read as empty and its writers learn they must write again; entries of
 * instances no longer alive are deleted. `ttl`: the hash's TTL in ms.
 */
const EXCHANGE_BODY = `
for k = firstKey, #KEYS do
  local key = KEYS[k]
  local known = fresh and '' or ARGV[arg]
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
  if version ~= '' and version == known then
    replies[#replies + 1] = {}
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
    replies[#replies + 1] = entries
  end
  if version ~= '' then redis.call('PEXPIRE', key, ttl) end
end
return replies
`;

/**
 * A cluster's exchange call (its keys must share a slot, so the instances set is read by a
 * HEARTBEAT_SCRIPT call before): KEYS the buckets' hashes; ARGV the hash TTL in ms, the number of
 * live instances and their ids, then the buckets' arguments (EXCHANGE_BODY).
 */
const EXCHANGE_SCRIPT = `
local ttl = ARGV[1]
local live = {}
local liveCount = tonumber(ARGV[2])
for i = 1, liveCount do live[ARGV[2 + i]] = true end
local arg = 3 + liveCount
local firstKey = 1
local fresh = false
local replies = {}
${EXCHANGE_BODY}`;

/**
 * One round trip where every key lives on one server: the heartbeat (KEYS[1], ARGV[1..3] as for
 * HEARTBEAT) and the exchange of KEYS[2..] in one call. ARGV[4]: the live ids the caller knows,
 * joined by newlines (when they are not the live ones, every bucket is read in full, as the caller
 * may hold entries of an instance gone since); ARGV[5]: the hash TTL in ms; then the buckets'
 * arguments. Replies with the live ids, then a reply per bucket.
 */
const LIVE_EXCHANGE_SCRIPT = `${HEARTBEAT}
local fresh = table.concat(liveIds, '\\n') ~= ARGV[4]
local live = {}
for i = 1, #liveIds do live[liveIds[i]] = true end
local ttl = ARGV[5]
local arg = 6
local firstKey = 2
local replies = { liveIds }
${EXCHANGE_BODY}`;

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
  /** This instance's clients' demand as the service last gave it, by client id. */
  readonly local: Map<string, number>;
  /** What the hash holds of this instance's clients, as far as this instance knows, by client id. */
  readonly stored: Map<string, number>;
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
 * Steady demand costs next to nothing: the service writes only changes, a change within
 * WRITE_TOLERANCE of what the hash holds is not sent, and a bucket whose version has not moved
 * since this instance read it comes back as nothing, the entries taken from what this instance
 * read before. Entries do not expire one by one: each instance marks itself alive on every
 * exchange (a sorted set, HEARTBEAT_SCRIPT), and the entries of an instance silent for the TTL are
 * dropped when their bucket is next read in full, which a change in the live instances forces.
 * The store keeps its own clients' latest demand, so a hash found without them (Redis restarted,
 * a failover without them) gets them back from the next exchange, and a failed exchange's writes
 * are sent again by the next.
 *
 * `write` only holds its entries: they go with the next exchange, or a third of their TTL after
 * the first was held when no exchange comes sooner.
 */
export class RedisDemandStore implements DemandStore {
  readonly shared = true;
  private readonly client: Redis | Cluster;
  /** Buckets with a local change not sent yet. */
  private pending = new Set<string>();
  private heldTimer: NodeJS.Timeout | undefined;
  /** The clock of the latest held write. */
  private heldAtMs = 0;
  private readonly bucketsPerCall: number;
  /** Whether the keys of one call must share a slot: then the heartbeat is a call of its own. */
  private readonly cluster: boolean;
  private readonly known = new Map<string, Known>();
  /** The live instances of the previous exchange, joined: a change forces a full read of every bucket. */
  private liveInstances = '';
  /** When buckets no longer read were last looked for. */
  private forgotAtMs = 0;

  constructor(
    settings: RedisInstanceSettings,
    private readonly keyPrefix: string,
    private readonly instanceId: string,
  ) {
    this.client = openClient(settings, tlsOptions(settings.tls, settings.label));
    this.client.defineCommand('rlqsHeartbeat', { lua: HEARTBEAT_SCRIPT });
    this.client.defineCommand('rlqsExchange', { lua: EXCHANGE_SCRIPT });
    this.client.defineCommand('rlqsLiveExchange', { lua: LIVE_EXCHANGE_SCRIPT });
    this.client.defineCommand('rlqsRemove', { lua: REMOVE_SCRIPT });
    this.cluster = this.client instanceof Cluster;
    this.bucketsPerCall = this.cluster ? 1 : BUCKETS_PER_CALL;
    // Without a listener ioredis throws connection errors from its emitter; calls report them.
    this.client.on('error', () => undefined);
  }

  async exchange(
    writes: readonly DemandWrite[],
    read: readonly string[],
    nowMs: number,
    ttlMs: number,
  ): Promise<DemandEntry[][]> {
    this.take(writes, nowMs);
    if (this.heldTimer) clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    const pairsOf = this.changedPairs(read);
    const buckets = [...pairsOf.keys()];
    try {
      const replies = await this.call(buckets, pairsOf, nowMs, ttlMs);
      buckets.forEach((bucket, i) => {
        this.learn(bucket, pairsOf.get(bucket) as string[], replies[i] as string[], nowMs);
      });
      this.forgetUnread(nowMs);
      return read.map((bucket) => this.known.get(bucket)?.entries ?? []);
    } catch (error) {
      // What was written is no longer known to be there: the next exchange writes it all again.
      for (const bucket of buckets) {
        const known = this.known.get(bucket);
        if (!known) continue;
        known.stored.clear();
        known.version = '';
        if (known.local.size > 0) this.pending.add(bucket);
      }
      throw new StoreError(`rlqs demand exchange failed: ${(error as Error).message}`, { cause: error });
    }
  }

  /**
   * The script calls of one exchange, BUCKETS_PER_CALL buckets each, sent as one pipeline; resolves
   * to a reply per bucket. Where every key lives on one server each call also marks this instance
   * alive (LIVE_EXCHANGE_SCRIPT), so a report's exchange is one round trip; a cluster, or an
   * exchange of no bucket, sends the heartbeat first.
   */
  private async call(
    buckets: readonly string[],
    pairsOf: ReadonlyMap<string, string[]>,
    nowMs: number,
    ttlMs: number,
  ): Promise<string[][]> {
    const instances = `${this.keyPrefix}instances`;
    const beat = [String(nowMs), String(ttlMs), this.instanceId];
    const keyTtl = String(ttlMs * ENTRY_KEY_TTLS);
    const batches: { keys: string[]; args: string[] }[] = [];
    for (let start = 0; start < buckets.length; start += this.bucketsPerCall) {
      const batch = buckets.slice(start, start + this.bucketsPerCall);
      const args: string[] = [];
      for (const bucket of batch) {
        const pairs = pairsOf.get(bucket) as string[];
        args.push(this.versionToSend(bucket, nowMs), String(pairs.length / 2), ...pairs);
      }
      batches.push({ keys: batch.map((bucket) => this.keyPrefix + bucket), args });
    }
    if (this.cluster || batches.length === 0) {
      const live = (await this.command<SmallCommand>('rlqsHeartbeat')(1, instances, ...beat)) as string[];
      this.noteLive(live);
      const exchange = this.command<ExchangeCommand>('rlqsExchange');
      const calls = batches.map(({ keys, args }) =>
        exchange(keys.length, ...keys, keyTtl, String(live.length), ...live, ...args),
      );
      return (await Promise.all(calls)).flat() as string[][];
    }
    const exchange = this.command<ExchangeCommand>('rlqsLiveExchange');
    const known = this.liveInstances;
    const results = await Promise.all(
      batches.map(({ keys, args }) =>
        exchange(keys.length + 1, instances, ...keys, ...beat, known, keyTtl, ...args),
      ),
    );
    this.noteLive((results[0] as (string | null)[][])[0] as string[]);
    return results.flatMap((result) => result.slice(1)) as string[][];
  }

  /**
   * Takes the live instances an exchange found: when they changed, every bucket is read in full
   * next time (those of this exchange were, by the script).
   */
  private noteLive(live: readonly string[]): void {
    const liveInstances = live.join('\n');
    if (liveInstances === this.liveInstances) return;
    this.liveInstances = liveInstances;
    for (const known of this.known.values()) known.version = '';
  }

  write(writes: readonly DemandWrite[], nowMs: number, ttlMs: number): Promise<void> {
    this.take(writes, nowMs);
    this.heldAtMs = nowMs;
    if (!this.heldTimer && this.pending.size > 0) {
      this.heldTimer = setTimeout(() => {
        this.heldTimer = undefined;
        // A failed flush loses nothing: its buckets stay pending for the next exchange.
        this.exchange([], [], this.heldAtMs, ttlMs).catch(() => undefined);
      }, ttlMs / 3);
      this.heldTimer.unref();
    }
    return Promise.resolve();
  }

  /** Takes the service's changes into what this instance's clients demand. */
  private take(writes: readonly DemandWrite[], nowMs: number): void {
    for (const write of writes) {
      this.knownOf(write.bucket, nowMs).local.set(write.client, write.perSecond);
      this.pending.add(write.bucket);
    }
  }

  private knownOf(bucket: string, nowMs: number): Known {
    let known = this.known.get(bucket);
    if (!known) {
      known = { version: '', entries: [], local: new Map(), stored: new Map(), readAtMs: 0, seenAtMs: nowMs };
      this.known.set(bucket, known);
    }
    return known;
  }

  /**
   * Per bucket (those of `read` first, then those with pending changes), the client and demand
   * pairs to send: this instance's clients whose demand is not in the hash, or differs by more
   * than WRITE_TOLERANCE from what it holds.
   */
  private changedPairs(read: readonly string[]): Map<string, string[]> {
    const pairsOf = new Map<string, string[]>();
    for (const bucket of read) pairsOf.set(bucket, []);
    for (const bucket of this.pending) {
      const known = this.known.get(bucket);
      let pairs = pairsOf.get(bucket);
      if (!pairs) {
        pairs = [];
        pairsOf.set(bucket, pairs);
      }
      if (!known) continue;
      for (const [client, perSecond] of known.local) {
        const stored = known.stored.get(client);
        if (stored !== undefined && Math.abs(perSecond - stored) <= WRITE_TOLERANCE * Math.max(stored, 1))
          continue;
        pairs.push(client, String(perSecond));
      }
    }
    this.pending = new Set();
    return pairsOf;
  }

  /** Drops what is known of buckets no exchange has read for two full-read periods (abandoned ones). */
  private forgetUnread(nowMs: number): void {
    if (nowMs - this.forgotAtMs < FULL_READ_EVERY_MS) return;
    this.forgotAtMs = nowMs;
    for (const [bucket, known] of this.known) {
      if (nowMs - known.seenAtMs > 2 * FULL_READ_EVERY_MS && known.local.size === 0)
        this.known.delete(bucket);
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
    const known = this.knownOf(bucket, nowMs);
    known.seenAtMs = nowMs;
    const gone: { bucket: string; client: string }[] = [];
    for (let i = 0; i + 1 < pairs.length; i += 2) {
      const client = pairs[i] as string;
      known.stored.set(client, Number(pairs[i + 1]));
      // Removed while this exchange was on its way, and written back by it: removed again.
      if (!known.local.has(client)) gone.push({ bucket, client });
    }
    if (gone.length > 0) this.remove(gone).catch(() => undefined);
    if (reply.length === 0) return;
    known.version = reply[0] as string;
    known.entries = entriesOf(reply, 1);
    known.readAtMs = nowMs;
    // A client of this instance missing from the hash (it was lost): written again by the next exchange.
    const present = new Set(known.entries.map((entry) => entry.client));
    for (const client of known.stored.keys()) if (!present.has(client)) known.stored.delete(client);
    for (const client of known.local.keys()) {
      if (!present.has(client)) this.pending.add(bucket);
    }
  }

  private command<Command>(name: string): Command {
    const client = this.client as unknown as Record<string, Command>;
    return (client[name] as unknown as (...args: unknown[]) => unknown).bind(this.client) as Command;
  }

  async remove(entries: ReadonlyArray<{ readonly bucket: string; readonly client: string }>): Promise<void> {
    const clientsOf = new Map<string, string[]>();
    for (const { bucket, client } of entries) {
      const known = this.known.get(bucket);
      known?.local.delete(client);
      known?.stored.delete(client);
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
    this.pending.clear();
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
      {
        redisOptions: options,
        clusterRetryStrategy: reconnectDelayMs,
        // ioredis refuses an automatic pipeline whose keys span slots of several nodes, which
        // the calls of one exchange (a bucket each) do: they go one by one.
        enableAutoPipelining: false,
      },
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
