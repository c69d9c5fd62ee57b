import type { Entry } from '../protocol/messages.js';

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
