import type { CounterStore, StoreDeps } from '../store.js';
import type { RedisSettings } from './settings.js';
import { RedisCounterStore } from './store.js';

export { POOL_EMPTY_MESSAGE } from './pool.js';
export {
  type PoolOnEmptyBehavior,
  type RedisAuth,
  type RedisInstanceSettings,
  type RedisSettings,
  type RedisTlsSettings,
  type RedisTopology,
  readRedisSettings,
} from './settings.js';
export { RedisCounterStore };

/**
 * Creates the Redis store. Never throws for an unreachable Redis: connections retry with backoff
 * and calls fail with a StoreError until Redis answers. Throws a StoreError only when a TLS file
 * named in the settings cannot be read.
 */
export function createRedisStore(
  settings: RedisSettings,
  deps: StoreDeps,
  expirationJitterMaxSeconds: number,
): CounterStore {
  return new RedisCounterStore(settings, deps, expirationJitterMaxSeconds);
}
