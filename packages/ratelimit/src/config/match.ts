import type { Entry } from '../protocol/messages.js';
import type { DescriptorNode, DomainConfig, KeyEntries, LimitMatch } from './tree.js';

enum MatchedBy {
  Value = 0,
  Wildcard = 1,
  Fallback = 2,
}

/**
 * Finds the rule for one request descriptor, level by level: the exact value first, then the
 * key's wildcards in config order, then the key without value. A rule counts only when it sits
 * on the last entry; the walk stops at a node without children (so a whitelisted `key=value`
 * never falls back to the default `key`).
 */
export function matchDescriptor(domain: DomainConfig, entries: readonly Entry[]): LimitMatch | undefined {
  let level = domain.root;
  let leaf: DescriptorNode | undefined;
  let runtimeKey = false;
  const last = entries.length - 1;
  for (let i = 0; i <= last; i++) {
    const entry = entries[i] as Entry;
    const found = lookup(level.byKey.get(entry.key), entry.value);
    if (!found) break;
    const node = found.node;
    if (node.valueToMetric || node.shareThreshold) runtimeKey = true;
    if (i === last && node.rule) leaf = node;
    if (!node.children) break;
    level = node.children;
  }
  if (!leaf) return undefined;
  if (!runtimeKey && !leaf.detailedMetric) return leaf.defaultMatch;
  return runtimeMatch(domain, entries, leaf);
}

interface Found {
  readonly node: DescriptorNode;
  readonly by: MatchedBy;
}

// Reused results: lookups are synchronous, and callers read them before the next lookup.
const byValue = { node: undefined as unknown as DescriptorNode, by: MatchedBy.Value };
const byWildcard = { node: undefined as unknown as DescriptorNode, by: MatchedBy.Wildcard };
const byFallback = { node: undefined as unknown as DescriptorNode, by: MatchedBy.Fallback };

function lookup(entries: KeyEntries | undefined, value: string): Found | undefined {
  if (!entries) return undefined;
  const exact = entries.byValue.get(value);
  if (exact) {
    byValue.node = exact;
    return byValue;
  }
  for (const wildcard of entries.wildcards) {
    if (value.startsWith(wildcard.prefix as string)) {
      byWildcard.node = wildcard;
      return byWildcard;
    }
  }
  if (entries.fallback) {
    byFallback.node = entries.fallback;
    return byFallback;
  }
  return undefined;
}

/**
 * The slow path, for rules whose stat key or cache key depends on runtime values:
 * detailed_metric (runtime `key_value` at every level), value_to_metric (runtime value at the
 * levels that set it) and share_threshold (the wildcard pattern, `*` kept, in both keys).
 */
function runtimeMatch(domain: DomainConfig, entries: readonly Entry[], leaf: DescriptorNode): LimitMatch {
  const rule = leaf.rule as NonNullable<DescriptorNode['rule']>;
  let statKey = domain.domain;
  let sharedValues: (string | undefined)[] | undefined;
  let level = domain.root;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i] as Entry;
    const found = lookup(level.byKey.get(entry.key), entry.value) as Found;
    const { node, by } = found;
    const shared = by === MatchedBy.Wildcard && node.shareThreshold;
    if (shared) {
      sharedValues ??= new Array<string | undefined>(entries.length).fill(undefined);
      sharedValues[i] = node.value;
    }
    statKey += `.${statSegment(entry, node, by, shared, leaf.detailedMetric)}`;
    if (node === leaf || !node.children) break;
    level = node.children;
  }
  return { rule, statKey, sharedValues };
}

function statSegment(
  entry: Entry,
  node: DescriptorNode,
  by: MatchedBy,
  shared: boolean,
  detailed: boolean,
): string {
  if (shared) return node.segment;
  if (detailed) return `${entry.key}_${entry.value}`;
  if (by === MatchedBy.Value || !node.valueToMetric) return node.segment;
  return entry.value === '' ? entry.key : `${entry.key}_${entry.value}`;
}
