import { tlsOptions } from '../redis/tls-files.js';
import type { CounterHit, CounterStore, StoreDeps } from '../store.js';
import { isLegalKey, parseAddReply, parseGetReply, parseIncrReply } from './protocol.js';
import { ServerList } from './server-list.js';
import type { ServerPool } from './server-pool.js';
import type { MemcacheSettings } from './settings.js';
import { type SrvResolver, serversFromSrv, systemSrvResolver } from './srv.js';
import { MEMCACHE_STATS as STAT } from './stats.js';

export interface MemcacheStoreOptions {
  /** SRV lookups; the system resolver by default (tests point a dns.Resolver at a stub server). */
  readonly resolveSrv?: SrvResolver;
  /** Dial and read deadline per operation; gomemcache's default, 500 ms. */
  readonly timeoutMs?: number;
}

const INT32_MAX = 2_147_483_647;
/** memcached reads an exptime above 30 days as an absolute Unix time. */
const MEMCACHE_MAX_RELATIVE_EXPTIME = 2_592_000;

/**
 * The exptime to send for a TTL in seconds. MONTH and YEAR windows (plus jitter) pass 30 days, which
 * memcached would read as a moment in 1970 and expire at once (the reference has that bug); those
 * are sent as absolute times on the wall clock, which is the clock memcached compares with.
 */
function memcacheExptime(ttlSeconds: number): number {
  if (ttlSeconds <= MEMCACHE_MAX_RELATIVE_EXPTIME) return ttlSeconds;
  return Math.floor(Date.now() / 1000) + ttlSeconds;
}
const SRV_RETRY_MAX_MS = 30_000;

/**
 * The Memcached counter store (reference 1.22): one multi-get per request on the critical path,
 * `after = before + addend` computed locally, then asynchronously per key: incr; on a miss add
 * with the TTL; if the add lost a race, incr again. Errors are logged and counted, never thrown:
 * memcache fails open, like the reference.
 */
export class MemcacheCounterStore implements CounterStore {
  readonly kind = 'memcache' as const;
  private readonly servers: ServerList;
  private readonly pending = new Set<Promise<void>>();
  private readonly resolveSrv: SrvResolver;
  private firstResolution: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly settings: MemcacheSettings,
    private readonly deps: StoreDeps,
    private readonly expirationJitterMaxSeconds: number,
    options: MemcacheStoreOptions = {},
  ) {
    this.servers = new ServerList(
      tlsOptions(settings.tls, 'MEMCACHE'),
      settings.maxIdleConns,
      options.timeoutMs ?? 500,
    );
    this.resolveSrv = options.resolveSrv ?? systemSrvResolver;
    if (settings.srv === undefined) {
      this.servers.setServers(settings.hostPorts, 'MEMCACHE_HOST_PORT');
      if (settings.hostPorts.length === 0) {
        // The reference starts like this too (gomemcache with no servers): every call fails open.
        deps.log.error(
          'memcache backend has no servers: set MEMCACHE_HOST_PORT (host:port,...) or MEMCACHE_SRV; until then no limit is enforced',
        );
      }
    } else {
      this.firstResolution = this.resolveUntilFirstSuccess(settings.srv);
    }
  }

  /** The servers in placement order (after SRV resolution), for operators and tests. */
  get serverAddresses(): string[] {
    return this.servers.addresses;
  }

  async hit(hits: readonly CounterHit[]): Promise<number[]> {
    if (this.firstResolution) await this.firstResolution;
    const before = await this.readCounts(hits);
    const after = new Array<number>(hits.length);
    for (let i = 0; i < hits.length; i++) after[i] = (before[i] as number) + (hits[i] as CounterHit).addend;
    this.track(this.incrementAll(hits));
    return after;
  }

  isHealthy(): boolean {
    return true;
  }

  /** Memcache never changes health (the reference ties health to Redis connections only). */
  onHealthChange(): void {}

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    await this.firstResolution;
    while (this.pending.size > 0) await Promise.all(this.pending);
    this.servers.close();
  }

  /** Resolves once the pending asynchronous increments are done (the reference's Flush). */
  async flush(): Promise<void> {
    while (this.pending.size > 0) await Promise.all(this.pending);
  }

  private track(task: Promise<void>): void {
    this.pending.add(task);
    void task.finally(() => this.pending.delete(task));
  }

  /** One `get` per server holding any of the keys, all servers at once. */
  private async readCounts(hits: readonly CounterHit[]): Promise<number[]> {
    const counts = new Array<number>(hits.length).fill(0);
    const byServer = new Map<ServerPool, string[]>();
    let failed = false;
    for (const hit of hits) {
      if (!isLegalKey(hit.key)) {
        failed = true;
        this.deps.log.error(
          'memcache: malformed key, not looked up (over 250 bytes, or a space or control character)',
          {
            key: hit.key.slice(0, 300),
          },
        );
        continue;
      }
      const server = this.servers.pick(hit.key);
      if (!server) {
        failed = true;
        continue;
      }
      const keys = byServer.get(server);
      if (keys) keys.push(hit.key);
      else byServer.set(server, [hit.key]);
    }
    this.deps.stats.inc(STAT.keysRequested, hits.length);
    if (byServer.size === 0 && this.servers.size === 0) {
      this.deps.log.error('memcache: no servers configured or available');
    }
    const found = new Map<string, string>();
    await Promise.all(
      [...byServer].map(async ([server, keys]) => {
        try {
          const values = await server.run(`get ${keys.join(' ')}\r\n`, parseGetReply);
          for (const [key, value] of values) found.set(key, value);
        } catch (error) {
          failed = true;
          this.deps.log.error('memcache: error multi-getting keys', {
            server: server.endpoint.address,
            error: (error as Error).message,
          });
        }
      }),
    );
    this.deps.stats.inc(failed ? STAT.multigetError : STAT.multigetSuccess);
    this.deps.stats.inc(STAT.keysFound, found.size);
    for (let i = 0; i < hits.length; i++) {
      const raw = found.get((hits[i] as CounterHit).key);
      if (raw !== undefined) counts[i] = this.parseCount(raw);
    }
    return counts;
  }

  /** ParseInt(value, 10, 32) as the reference does; anything else counts as 0. */
  private parseCount(raw: string): number {
    const value = Number(raw);
    if (/^[+-]?\d+$/.test(raw) && value >= 0 && value <= INT32_MAX) return value;
    this.deps.log.error('memcache: unexpected non-numeric value, counted as 0', { value: raw.slice(0, 64) });
    return 0;
  }

  private async incrementAll(hits: readonly CounterHit[]): Promise<void> {
    await Promise.all(hits.map((hit) => this.increment(hit)));
  }

  /** incr; on a miss add (with the TTL); if the add lost a race, incr again. */
  private async increment(hit: CounterHit): Promise<void> {
    const { stats, log } = this.deps;
    const server = isLegalKey(hit.key) ? this.servers.pick(hit.key) : undefined;
    if (!server) {
      stats.inc(STAT.incrementError);
      return;
    }
    const incr = `incr ${hit.key} ${hit.addend}\r\n`;
    try {
      const result = await server.run(incr, parseIncrReply);
      if (result !== 'NOT_FOUND') {
        stats.inc(STAT.incrementSuccess);
        return;
      }
      stats.inc(STAT.incrementMiss);
    } catch (error) {
      stats.inc(STAT.incrementError);
      log.error('memcache: failed to increment key', { key: hit.key, error: (error as Error).message });
      return;
    }
    const value = String(hit.addend);
    const ttl = memcacheExptime(this.ttl(hit));
    try {
      const added = await server.run(
        `add ${hit.key} 0 ${ttl} ${value.length}\r\n${value}\r\n`,
        parseAddReply,
      );
      if (added === 'STORED') {
        stats.inc(STAT.addSuccess);
        return;
      }
      stats.inc(STAT.addNotStored);
    } catch (error) {
      stats.inc(STAT.addError);
      log.error('memcache: failed to add key', { key: hit.key, error: (error as Error).message });
      return;
    }
    // Another request added the key first: our hit still has to count.
    try {
      const result = await server.run(incr, parseIncrReply);
      stats.inc(result === 'NOT_FOUND' ? STAT.incrementMiss : STAT.incrementSuccess);
    } catch (error) {
      stats.inc(STAT.incrementError);
      log.error('memcache: failed to increment key after failing to add', {
        key: hit.key,
        error: (error as Error).message,
      });
    }
  }

  private ttl(hit: CounterHit): number {
    const jitter = this.expirationJitterMaxSeconds;
    return jitter > 0 ? hit.divider + this.deps.random(jitter) : hit.divider;
  }

  /**
   * First SRV resolution: the reference panics when it fails; here it is logged and retried with
   * backoff (calls fail open meanwhile). Then, with MEMCACHE_SRV_REFRESH, re-resolved periodically.
   */
  private async resolveUntilFirstSuccess(name: string): Promise<void> {
    const resolved = await this.refresh(name);
    this.firstResolution = undefined;
    if (this.closed) return;
    if (resolved) {
      this.scheduleRefresh(name);
      return;
    }
    let delay = 1000;
    const retry = async () => {
      if (this.closed) return;
      if (await this.refresh(name)) {
        this.scheduleRefresh(name);
        return;
      }
      delay = Math.min(delay * 2, SRV_RETRY_MAX_MS);
      this.timer = setTimeout(retry, delay);
      this.timer.unref();
    };
    this.timer = setTimeout(retry, delay);
    this.timer.unref();
  }

  private scheduleRefresh(name: string): void {
    const interval = this.settings.srvRefreshMs;
    if (interval <= 0 || this.closed) return;
    this.timer = setTimeout(async () => {
      await this.refresh(name);
      this.scheduleRefresh(name);
    }, interval);
    this.timer.unref();
  }

  private async refresh(name: string): Promise<boolean> {
    try {
      const servers = await serversFromSrv(name, this.resolveSrv);
      if (!this.closed) this.servers.setServers(servers, 'MEMCACHE_SRV');
      return true;
    } catch (error) {
      this.deps.log.error(`Unable to fetch servers from SRV ${name}: ${(error as Error).message}`);
      return false;
    }
  }
}
