import type { Entry } from '../config/match.js';

/**
 * The reference's cache key, `<prefix><domain>_<k1>_<v1>_..._<windowStart>`, built from the
 * runtime entries; a share_threshold entry contributes its wildcard pattern (with `*`) instead.
 */
export function cacheKey(
  prefix: string,
  domain: string,
  entries: readonly Entry[],
  sharedValues: readonly (string | undefined)[] | undefined,
  windowStart: number,
): string {
  let key = `${prefix}${domain}_`;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as Entry;
    key += `${entry.key}_${sharedValues?.[i] ?? entry.value}_`;
  }
  return key + windowStart;
}
