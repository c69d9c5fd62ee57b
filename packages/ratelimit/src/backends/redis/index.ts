// CONTRACT placeholder, replaced by the Redis store work: the lead wires these two functions
// into src/backends/index.ts; their bodies are written in the rl-stores branch.
import type { CounterStore, StoreDeps } from '../store.js';

/** Every REDIS_* / REDIS_PERSECOND_* setting (and KVSTORE_* aliases), parsed and validated. */
export interface RedisSettings {
  readonly url: string;
}

/** Reads REDIS_* settings (KVSTORE_* aliases accepted); throws SettingsError naming the setting. */
export function readRedisSettings(env: NodeJS.ProcessEnv): RedisSettings {
  return { url: env.REDIS_URL ?? env.KVSTORE_URL ?? '127.0.0.1:6379' };
}

/** Creates the Redis store. Never throws for an unreachable Redis: it retries with backoff. */
export function createRedisStore(
  _settings: RedisSettings,
  _deps: StoreDeps,
  _expirationJitterMaxSeconds: number,
): CounterStore {
  throw new Error('placeholder: the Redis store lands with the rl-stores branch');
}
