import type { Algorithm, AlgorithmParams } from '../protocol/algorithm.js';
import type { Unit } from '../protocol/units.js';

/** One limit of a rule: its `rate_limit` block, or one entry of its `rate_limits` list. */
export interface Limit {
  readonly algorithm: Algorithm;
  readonly unit: Unit;
  readonly unitMultiplier: number;
  readonly requestsPerUnit: number;
  /** The window (fixed, sliding) or refill period (token bucket): unit × unit_multiplier. */
  readonly windowSeconds: number;
  /**
   * What a hit is compared with: requests_per_unit, or the bucket's capacity (`burst`) for a
   * token bucket.
   */
  readonly threshold: number;
  /** undefined for a fixed window. */
  readonly params: AlgorithmParams | undefined;
  /**
   * Appended to the cache key so that no two limits of a list share a counter: '' for a single
   * limit and for a list's first fixed window (the reference's key), else `#<index in list>`.
   */
  readonly keyTag: string;
  readonly name: string;
  readonly replaces: readonly string[];
}

/** A configured limit, attached to the descriptor node that declares `rate_limit` or `rate_limits`. */
export interface RateLimitRule {
  /** Load-time key, `<domain>.<key>[_<value>]...`; the default stat key and the /rlconfig label. */
  readonly fullKey: string;
  /** The first limit's, as /rlconfig prints it. */
  readonly requestsPerUnit: number;
  /** The first limit's; undefined only for unlimited rules, which must not name a unit. */
  readonly unit: Unit | undefined;
  readonly unlimited: boolean;
  /** The limits counted for a match: one for `rate_limit`, the list for `rate_limits`, none when unlimited. */
  readonly limits: readonly Limit[];
  /** The first limit's name (the only one for `rate_limit`). */
  readonly name: string;
  /** Every name that any of the rule's limits replaces. */
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
}
