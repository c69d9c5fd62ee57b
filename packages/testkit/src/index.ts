export { requireBinary, type ServiceUnavailable, serviceSkip } from './binaries.js';
export { type MemcachedProcess, startMemcached } from './memcached.js';
export { freePort, waitForPort } from './ports.js';
export { databaseUrl } from './postgres.js';
export { type ManagedProcess, spawnManaged } from './process.js';
export { type RedisOptions, type RedisProcess, startRedis } from './redis.js';
