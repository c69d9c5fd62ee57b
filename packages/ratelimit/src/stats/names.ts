const IPV4 = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/g;

/**
 * The reference's SanitizeStatName: `:` and `|` become `_` (they are statsd separators), and
 * the dots of IPv4-looking substrings become `_`, so `50.0.0.5` stays one path segment.
 */
export function sanitizeStatName(name: string): string {
  return name.replace(/[:|]/g, '_').replace(IPV4, (ip) => ip.replaceAll('.', '_'));
}

export const STAT = {
  configLoadSuccess: 'ratelimit.service.config_load_success',
  configLoadError: 'ratelimit.service.config_load_error',
  globalShadowMode: 'ratelimit.service.global_shadow_mode',
  redisError: 'ratelimit.service.call.should_rate_limit.redis_error',
  serviceError: 'ratelimit.service.call.should_rate_limit.service_error',
  ruleRoot: 'ratelimit.service.rate_limit.',
  perValueOverflow: 'ratelimit.stats.per_value_overflow',
  localCacheRoot: 'ratelimit.localcache.',
  serverRoot: 'ratelimit_server.',
} as const;
