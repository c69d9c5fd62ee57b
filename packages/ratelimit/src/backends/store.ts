import type { Unit } from '../limiter/units.js';

/** One counter to add to, for one descriptor of one request. */
export interface CounterHit {
  /** The full cache key, `<CACHE_KEY_PREFIX><domain>_<k>_<v>..._<windowStart>`. */
  readonly key: string;
  /** How much to add; 0 means check only (Redis still sends INCRBY 0 + EXPIRE). */
  readonly addend: number;
  /** requests_per_unit of the rule, for STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT. */
  readonly limit: number;
  readonly unit: Unit;
  /** Window length in seconds; the key's TTL is this plus the expiration jitter. */
  readonly divider: number;
}

/** Counters the store needs to report; the limiter's stat store provides them. */
export interface StoreStats {
  /** Adds `by` (default 1) to the counter named `name` (a full stat name). */
  inc(name: string, by?: number): void;
}

export interface StoreLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

export interface StoreDeps {
  readonly stats: StoreStats;
  readonly log: StoreLogger;
  /** Seconds since the epoch; injected so tests control the clock. */
  readonly now: () => number;
  /** Random integer in [0, max), for the expiration jitter; injected for deterministic tests. */
  readonly random: (max: number) => number;
}

/**
 * A counter store. Every backend implements exactly this, and nothing outside src/backends
 * knows which one runs.
 */
export interface CounterStore {
  readonly kind: 'memory' | 'redis' | 'memcache';
  /**
   * Adds each hit's addend to its counter and resolves to the counter values after the
   * addition, in the same order as `hits`. The limiter derives `before = after - addend`.
   * `stopIncrementWhenOverLimit` carries STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (Redis only).
   * Rejects with a StoreError carrying the backend's error text when the backend fails.
   */
  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<number[]>;
  /**
   * The same as `hit`, answered at once, for stores that never wait (the in-process memory
   * store). When present the limiter calls it instead of `hit`, so a request through such a
   * store creates no promise and no microtask. Network stores leave it out. `now` is the
   * limiter's clock reading for the request, so the keys' windows and their expiry agree.
   */
  hitNow?(
    hits: readonly CounterHit[],
    options: { stopIncrementWhenOverLimit: boolean },
    now: number,
  ): number[];
  /** False while the backend is known to be unreachable (REDIS_HEALTH_CHECK_ACTIVE_CONNECTION). */
  isHealthy(): boolean;
  /** Called whenever isHealthy() changes; the health model subscribes. */
  onHealthChange(listener: (healthy: boolean) => void): void;
  /** Flushes pending work (e.g. memcache's async increments) and closes connections. */
  close(): Promise<void>;
}
