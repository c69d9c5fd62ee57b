import type { StoreCapabilities } from '../config/limits.js';
import type { BackendSettings, BackendType } from '../settings.js';
import type { DemandStore } from './demand.js';
import { createMemcacheStore } from './memcache/index.js';
import { MemoryStore } from './memory.js';
import { MemoryDemandStore } from './memory-demand.js';
import { RedisDemandStore } from './redis/demand-store.js';
import { createRedisStore } from './redis/index.js';
import type { CounterStore, StoreDeps } from './store.js';

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
 * out alike. Settings refuse RLQS with Memcached before this is called.
 */
export function createDemandStore(backend: BackendSettings, keyPrefix: string): DemandStore {
  if (backend.type === 'redis') return new RedisDemandStore(backend.redis.main, keyPrefix);
  if (backend.type === 'memory') return new MemoryDemandStore();
  throw new Error('the Rate Limit Quota Service needs BACKEND_TYPE=redis or memory');
}
