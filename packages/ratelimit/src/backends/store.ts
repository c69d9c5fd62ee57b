import type { AlgorithmParams } from '../config/tree.js';
import type { Unit } from '../limiter/units.js';

/** One counter to add to, for one descriptor of one request. */
export interface CounterHit {
  /**
   * The full cache key: `<CACHE_KEY_PREFIX><domain>_<k>_<v>..._<windowStart>` for a fixed window,
   * `..._sliding` or `..._bucket` for the other algorithms, each followed by `#<index>` for a
   * limit of a `rate_limits` list other than its first fixed window.
   */
  readonly key: string;
  /** How much to add; 0 means check only (Redis still sends INCRBY 0 + EXPIRE). */
  readonly addend: number;
  /**
   * What `after` is compared with: requests_per_unit, or `burst` for a token bucket. Used for
   * STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT.
   */
  readonly limit: number;
  readonly unit: Unit;
  /** Window length in seconds; a fixed window's TTL is this plus the expiration jitter. */
  readonly divider: number;
  /** A sliding window or token bucket; absent for a fixed window (a plain counter). */
  readonly algorithm?: AlgorithmParams | undefined;
}

/**
 * What a store answers for `n` hits: `results[i]` is hit i's `after`, its counter after adding
 * (the rounded-up estimate for a sliding window, the tokens in use for a token bucket; see
 * src/limiter/algorithms). For a hit with an `algorithm`, `results[n + i]` is the time in ms
 * until it resets, as the store's clock sees it; fixed windows leave that slot unset.
 */
export type HitResults = number[];

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
  /** Milliseconds since the epoch (src/limiter/clock.ts); injected so tests control the clock. */
  readonly now: () => number;
  /** Random integer in [0, max), for the expiration jitter; injected for deterministic tests. */
  readonly random: (max: number) => number;
}

/**
 * A counter store. Every backend implements exactly this, and nothing outside src/backends
 * knows which one runs.
 */
export type StoreKind = 'memory' | 'redis' | 'memcache';

export interface CounterStore {
  readonly kind: StoreKind;
  /**
   * Adds each hit's addend to its counter and resolves to the counter values after the
   * addition, in the same order as `hits`. The limiter derives `before = after - addend`.
   * `stopIncrementWhenOverLimit` carries STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (Redis only).
   * Rejects with a StoreError carrying the backend's error text when the backend fails.
   */
  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<HitResults>;
  /** False while the backend is known to be unreachable (REDIS_HEALTH_CHECK_ACTIVE_CONNECTION). */
  isHealthy(): boolean;
  /** Called whenever isHealthy() changes; the health model subscribes. */
  onHealthChange(listener: (healthy: boolean) => void): void;
  /** Flushes pending work (e.g. memcache's async increments) and closes connections. */
  close(): Promise<void>;
}
