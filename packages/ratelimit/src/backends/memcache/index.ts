// CONTRACT placeholder, replaced by the Memcached store work (rl-stores branch).
import type { CounterStore, StoreDeps } from '../store.js';

/** Every MEMCACHE_* setting (OBJCACHE_* aliases accepted), parsed and validated. */
export interface MemcacheSettings {
  readonly hostPorts: readonly string[];
}

/** Reads MEMCACHE_* settings; throws SettingsError naming the setting. */
export function readMemcacheSettings(env: NodeJS.ProcessEnv): MemcacheSettings {
  return { hostPorts: (env.MEMCACHE_HOST_PORT ?? env.OBJCACHE_HOST_PORT ?? '').split(',').filter(Boolean) };
}

export function createMemcacheStore(
  _settings: MemcacheSettings,
  _deps: StoreDeps,
  _expirationJitterMaxSeconds: number,
): CounterStore {
  throw new Error('placeholder: the Memcached store lands with the rl-stores branch');
}
