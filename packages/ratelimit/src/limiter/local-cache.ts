import { type Clock, secondOf } from './clock.js';

/** freecache refuses smaller caches; the reference's 1000-byte test setting becomes this. */
export const MIN_LOCAL_CACHE_BYTES = 512 * 1024;
/** freecache's per-entry header; the value is empty, so an entry costs this plus its key. */
const ENTRY_OVERHEAD_BYTES = 24;

interface CacheEntry {
  expiresAt: number;
  accessedAt: number;
}

/**
 * The optional local cache of keys already over their limit (LOCAL_CACHE_SIZE_IN_BYTES).
 * A hit skips the store. Memory is bounded by bytes: the oldest entries are evicted first, and
 * expired entries are dropped when they are looked up or evicted (no timers per key).
 */
export class LocalOverLimitCache {
  readonly capacityBytes: number;
  private readonly entries = new Map<string, CacheEntry>();
  private usedBytes = 0;
  private accessTimeSum = 0;
  private hitCount = 0;
  private missCount = 0;
  private lookupCount = 0;
  private expiredCount = 0;
  private evacuateCount = 0;
  private overwriteCount = 0;

  constructor(
    sizeInBytes: number,
    private readonly clock: Clock,
  ) {
    this.capacityBytes = Math.max(sizeInBytes, MIN_LOCAL_CACHE_BYTES);
  }

  /** True when `key` is cached and not expired; counts the lookup like freecache. */
  has(key: string): boolean {
    this.lookupCount++;
    const entry = this.entries.get(key);
    const now = secondOf(this.clock());
    if (entry && entry.expiresAt > now) {
      this.hitCount++;
      this.accessTimeSum += now - entry.accessedAt;
      entry.accessedAt = now;
      return true;
    }
    if (entry) {
      this.expiredCount++;
      this.remove(key, entry);
    }
    this.missCount++;
    return false;
  }

  /** Caches an over-limit key for `ttlSeconds` (the whole window length, like the reference). */
  set(key: string, ttlSeconds: number): void {
    const now = secondOf(this.clock());
    const existing = this.entries.get(key);
    if (existing) {
      this.overwriteCount++;
      this.remove(key, existing);
    }
    this.entries.set(key, { expiresAt: now + ttlSeconds, accessedAt: now });
    this.accessTimeSum += now;
    this.usedBytes += ENTRY_OVERHEAD_BYTES + key.length;
    this.evictUntilWithinCapacity(now);
  }

  private evictUntilWithinCapacity(now: number): void {
    for (const [key, entry] of this.entries) {
      if (this.usedBytes <= this.capacityBytes) return;
      if (entry.expiresAt <= now) this.expiredCount++;
      else this.evacuateCount++;
      this.remove(key, entry);
    }
  }

  private remove(key: string, entry: CacheEntry): void {
    this.entries.delete(key);
    this.accessTimeSum -= entry.accessedAt;
    this.usedBytes -= ENTRY_OVERHEAD_BYTES + key.length;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The reference's `ratelimit.localcache.*` gauges. */
  *gauges(): Iterable<readonly [string, number]> {
    const root = 'ratelimit.localcache.';
    // freecache reports the mean Unix time of the entries' last access.
    const averageAccessTime =
      this.entries.size === 0 ? 0 : Math.floor(this.accessTimeSum / this.entries.size);
    yield [`${root}averageAccessTime`, averageAccessTime];
    yield [`${root}entryCount`, this.entries.size];
    yield [`${root}evacuateCount`, this.evacuateCount];
    yield [`${root}expiredCount`, this.expiredCount];
    yield [`${root}hitCount`, this.hitCount];
    yield [`${root}lookupCount`, this.lookupCount];
    yield [`${root}missCount`, this.missCount];
    yield [`${root}overwriteCount`, this.overwriteCount];
  }
}
