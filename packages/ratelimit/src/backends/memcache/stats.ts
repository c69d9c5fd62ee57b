/**
 * The reference's memcache client counters (src/memcached/stats_collecting_client.go), under the
 * service scope `ratelimit.memcache`. Tagged counters are named the way gostats flattens a tag
 * into a statsd name: `<name>.__<tag>=<value>`.
 */
export const MEMCACHE_STATS = {
  multigetSuccess: 'ratelimit.memcache.multiget.__code=success',
  multigetError: 'ratelimit.memcache.multiget.__code=error',
  incrementSuccess: 'ratelimit.memcache.increment.__code=success',
  incrementMiss: 'ratelimit.memcache.increment.__code=miss',
  incrementError: 'ratelimit.memcache.increment.__code=error',
  addSuccess: 'ratelimit.memcache.add.__code=success',
  addError: 'ratelimit.memcache.add.__code=error',
  addNotStored: 'ratelimit.memcache.add.__code=not_stored',
  keysRequested: 'ratelimit.memcache.keys_requested',
  keysFound: 'ratelimit.memcache.keys_found',
} as const;
