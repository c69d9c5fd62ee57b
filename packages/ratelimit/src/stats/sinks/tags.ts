/** Tags added to every stat (EXTRA_TAGS), already parsed from `k1:v1,k2:v2`. */
export type Tags = Readonly<Record<string, string>>;

// gostats replaces the characters statsd uses as separators.
const reservedInTagValue = /[.:|]/g;

/**
 * Serialises tags into a plain statsd name the way gostats does: `.__key=value`, sorted by key, with
 * `.`, `:` and `|` in values replaced by `_`, so tagged stats still reach a tagless statsd.
 */
export function tagSuffix(tags: Tags): string {
  return Object.keys(tags)
    .sort()
    .map((key) => `.__${key}=${String(tags[key]).replace(reservedInTagValue, '_')}`)
    .join('');
}
