import type { CounterStore, StoreDeps } from '../store.js';
import type { MemcacheSettings } from './settings.js';
import { MemcacheCounterStore, type MemcacheStoreOptions } from './store.js';

export { isLegalKey } from './protocol.js';
export { type MemcacheSettings, type MemcacheTlsSettings, readMemcacheSettings } from './settings.js';
export type { SrvRecord, SrvResolver } from './srv.js';
export { MEMCACHE_STATS } from './stats.js';
export { MemcacheCounterStore, type MemcacheStoreOptions };

/**
 * Creates the Memcached store. Never throws for unreachable servers (calls fail open, as in the
 * reference); throws a StoreError only when a TLS file named in the settings cannot be read.
 * `options` exists for tests (an SRV resolver pointed at a stub DNS server, a shorter deadline).
 */
export function createMemcacheStore(
  settings: MemcacheSettings,
  deps: StoreDeps,
  expirationJitterMaxSeconds: number,
  options?: MemcacheStoreOptions,
): CounterStore {
  return new MemcacheCounterStore(settings, deps, expirationJitterMaxSeconds, options);
}
