import type { DemandStore } from './demand.js';
import { createMemcacheStore, type MemcacheSettings } from './memcache/index.js';
import { MemoryStore, type MemoryStoreOptions } from './memory.js';
import { MemoryDemandStore } from './memory-demand.js';
import { RedisDemandStore } from './redis/demand-store.js';
import { createRedisStore, type RedisSettings } from './redis/index.js';
import type { CounterStore, StoreCapabilities, StoreDeps } from './store.js';

export type BackendType = 'redis' | 'memcache' | 'memory';

/**
 * BACKEND_TYPE and the settings of that store only, shaped as the options its constructor takes.
 * EXPIRATION_JITTER_MAX_SECONDS goes to the stores whose keys expire by TTL.
 */
export type BackendSettings =
  | { readonly type: 'redis'; readonly redis: RedisSettings; readonly expirationJitterMaxSeconds: number }
  | {
      readonly type: 'memcache';
      readonly memcache: MemcacheSettings;
      readonly expirationJitterMaxSeconds: number;
    }
  | { readonly type: 'memory'; readonly memory: MemoryStoreOptions };

/** Creates the counter store that BACKEND_TYPE selects (redis by default). */
export function createStore(backend: BackendSettings, deps: StoreDeps): CounterStore {
  switch (backend.type) {
    case 'memory':
      return new MemoryStore(deps, backend.memory);
    case 'memcache':
      return createMemcacheStore(backend.memcache, deps, backend.expirationJitterMaxSeconds);
    case 'redis':
      return createRedisStore(backend.redis, deps, backend.expirationJitterMaxSeconds);
  }
}

/**
 * What a config needs from the store BACKEND_TYPE selects: Memcached keeps fixed windows only
 * (its counters have no script to run a sliding window or a bucket atomically), so a config
 * with another algorithm is refused at load; memory and Redis count every algorithm.
 */
export function storeCapabilities(type: BackendType): StoreCapabilities | undefined {
  return type === 'memcache' ? { backend: 'memcache', algorithms: ['fixed_window'] } : undefined;
}

/**
 * Where the Rate Limit Quota Service keeps its clients' demand: in this process for the memory
 * store, in Redis (REDIS_URL's deployment, keys under `keyPrefix`) so that every instance shares
 * out alike; `instanceId` prefixes this instance's client ids there. Settings refuse RLQS with
 * Memcached before this is called.
 */
export function createDemandStore(
  backend: BackendSettings,
  keyPrefix: string,
  instanceId: string,
): DemandStore {
  if (backend.type === 'redis') return new RedisDemandStore(backend.redis.main, keyPrefix, instanceId);
  if (backend.type === 'memory') return new MemoryDemandStore();
  throw new Error('the Rate Limit Quota Service needs BACKEND_TYPE=redis or memory');
}
