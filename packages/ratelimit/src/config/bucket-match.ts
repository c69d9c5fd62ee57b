import type { Entry } from '../protocol/messages.js';
import { matchDescriptor } from './match.js';
import type { LimitMatch, RateLimitConfig } from './tree.js';

/**
 * The descriptor an RLQS bucket is looked up as: its `key: value` pairs in lexical order of the
 * keys (UTF-16 code units, as JavaScript sorts), since a BucketId is a map whose order carries no
 * meaning. `{name: api, tier: free}` is the descriptor `[(name, api), (tier, free)]`.
 */
export function bucketDescriptor(bucket: Iterable<readonly [string, string]>): Entry[] {
  const entries = [...bucket].map(([key, value]) => ({ key, value }));
  return entries.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}

/**
 * The rule a bucket's descriptor finds in `domain`, by the same matching as ShouldRateLimit
 * (values, wildcards, keys without value); undefined for an unknown domain or no match.
 */
export function matchBucket(
  config: RateLimitConfig | undefined,
  domain: string,
  descriptor: readonly Entry[],
): LimitMatch | undefined {
  const domainConfig = config?.domains.get(domain);
  return domainConfig ? matchDescriptor(domainConfig, descriptor) : undefined;
}
