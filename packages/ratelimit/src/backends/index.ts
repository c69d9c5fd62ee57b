import type { StoreCapabilities } from '../config/limits.js';
import type { BackendSettings, BackendType } from '../settings.js';
import { createMemcacheStore } from './memcache/index.js';
import { MemoryStore } from './memory.js';
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
