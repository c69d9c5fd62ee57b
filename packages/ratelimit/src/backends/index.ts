import type { StoreCapabilities } from '../config/limits.js';
import type { Settings } from '../settings.js';
import { createMemcacheStore } from './memcache/index.js';
import { MemoryStore } from './memory.js';
import { createRedisStore } from './redis/index.js';
import type { CounterStore, StoreDeps } from './store.js';

/** Creates the counter store that BACKEND_TYPE selects (redis by default). */
export function createStore(
  backend: Settings['backend'],
  deps: StoreDeps,
  expirationJitterMaxSeconds: number,
): CounterStore {
  switch (backend.type) {
    case 'memory':
      return new MemoryStore(deps, {
        maxCounters: backend.memoryMaxCounters,
        maxBytes: backend.memoryMaxBytes,
      });
    case 'memcache':
      if (!backend.memcache) throw new Error('memcache settings were not read for BACKEND_TYPE=memcache');
      return createMemcacheStore(backend.memcache, deps, expirationJitterMaxSeconds);
    case 'redis':
      if (!backend.redis) throw new Error('redis settings were not read for BACKEND_TYPE=redis');
      return createRedisStore(backend.redis, deps, expirationJitterMaxSeconds);
  }
}

/**
 * What a config needs from the store BACKEND_TYPE selects: Memcached keeps fixed windows only
 * (its counters have no script to run a sliding window or a bucket atomically), so a config
 * with another algorithm is refused at load; memory and Redis count every algorithm.
 */
export function storeCapabilities(type: Settings['backend']['type']): StoreCapabilities | undefined {
  return type === 'memcache' ? { backend: 'memcache', algorithms: ['fixed_window'] } : undefined;
}
