import type { Unit } from '../limiter/units.js';

/** A configured limit, attached to the descriptor node that declares `rate_limit`. */
export interface RateLimitRule {
  /** Load-time key, `<domain>.<key>[_<value>]...`; the default stat key and the /rlconfig label. */
  readonly fullKey: string;
  readonly requestsPerUnit: number;
  /** undefined only for unlimited rules, which must not name a unit. */
  readonly unit: Unit | undefined;
  readonly unlimited: boolean;
  readonly name: string;
  readonly replaces: readonly string[];
  readonly shadowMode: boolean;
}

/** One level of the descriptor tree: lookups by key, then by value, never a scan of the config. */
export interface DescriptorLevel {
  readonly byKey: ReadonlyMap<string, KeyEntries>;
}

/** Everything a level holds for one descriptor key. */
export interface KeyEntries {
  /** Exact values. */
  readonly byValue: Map<string, DescriptorNode>;
  /** Trailing-`*` values of this key, in config order (the first match wins). */
  readonly wildcards: DescriptorNode[];
  /** The entry with no value, which matches any value. */
  fallback: DescriptorNode | undefined;
}

export interface DescriptorNode {
  readonly key: string;
  readonly value: string;
  /** `<key>` or `<key>_<value>`, the segment of the load-time key. */
  readonly segment: string;
  /** For a wildcard, the value without its trailing `*`. */
  readonly prefix: string | undefined;
  readonly rule: RateLimitRule | undefined;
  /** The match for the common case (no runtime values in the stat key), built once at load time. */
  readonly defaultMatch: LimitMatch | undefined;
  /**
   * The common case when, in addition, every entry of the request matched its node's value
   * exactly: the cache key is then known at load time too, but for its prefix and window.
   */
  readonly exactMatch: LimitMatch | undefined;
  readonly children: DescriptorLevel | undefined;
  readonly detailedMetric: boolean;
  readonly valueToMetric: boolean;
  readonly shareThreshold: boolean;
}

export interface DomainConfig {
  readonly domain: string;
  readonly root: DescriptorLevel;
}

/** An immutable, fully validated config: swapped atomically on reload. */
export interface RateLimitConfig {
  readonly domains: ReadonlyMap<string, DomainConfig>;
  /** Every rule with a rate_limit block, in load order, for /rlconfig. */
  readonly rules: readonly RateLimitRule[];
}

/** The rule a request descriptor matched, with the stat key and cache-key values for this request. */
export interface LimitMatch {
  readonly rule: RateLimitRule;
  readonly statKey: string;
  /**
   * Per entry index, the wildcard value (with its `*`) that replaces the runtime value in the
   * cache key because it matched a share_threshold rule; undefined when no entry is shared.
   */
  readonly sharedValues: readonly (string | undefined)[] | undefined;
  /**
   * `<domain>_<k1>_<v1>_..._<kn>_<vn>_`: the cache key without CACHE_KEY_PREFIX and window start,
   * set only when the request's entries are the exact values of the rule's path.
   */
  readonly cacheKeyBody?: string;
}
