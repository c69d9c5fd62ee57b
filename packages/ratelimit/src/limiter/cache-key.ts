import type { Entry } from '../config/match.js';
import type { LimitMatch } from '../config/tree.js';
import { flatten } from '../flat-string.js';

/**
 * The reference's cache key without its window start, `<prefix><domain>_<k1>_<v1>_..._`, built
 * from the runtime entries; a share_threshold entry contributes its wildcard pattern (with `*`).
 */
export function cacheKeyBody(
  prefix: string,
  domain: string,
  entries: readonly Entry[],
  sharedValues: readonly (string | undefined)[] | undefined,
): string {
  let key = `${prefix}${domain}_`;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as Entry;
    key += `${entry.key}_${sharedValues?.[i] ?? entry.value}_`;
  }
  return key;
}

interface WindowKey {
  windowStart: number;
  key: string;
}

/**
 * The cache keys of matches known at load time (`cacheKeyBody`), one per match for its current
 * window. Every request of that window reuses the same flat string, so the key is neither built
 * nor hashed again; matches of a replaced config are dropped with it.
 */
export class ExactKeyCache {
  private readonly keys = new WeakMap<LimitMatch, WindowKey>();

  constructor(private readonly prefix: string) {}

  key(match: LimitMatch, cacheKeyBody: string, windowStart: number): string {
    const known = this.keys.get(match);
    if (known?.windowStart === windowStart) return known.key;
    const key = flatten(`${this.prefix}${cacheKeyBody}${windowStart}`);
    if (known) {
      known.windowStart = windowStart;
      known.key = key;
    } else {
      this.keys.set(match, { windowStart, key });
    }
    return key;
  }
}
