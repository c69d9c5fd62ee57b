import type { StoreCapabilities } from '../backends/store.js';
import { ConfigError } from '../errors.js';
import { flatten } from '../flat-string.js';
import type { ConfigDocument, DescriptorConfig } from './document.js';
import { buildRule } from './limits.js';
import type { DescriptorLevel, DescriptorNode, KeyEntries, RateLimitConfig, RateLimitRule } from './tree.js';

interface MutableLevel extends DescriptorLevel {
  readonly byKey: Map<string, KeyEntries>;
  /** Composite keys (`key_value` or `key`) already used at this level, as the reference checks them. */
  readonly compositeKeys: Set<string>;
}

/**
 * Builds the descriptor trees of every domain, with the reference's validation errors.
 * With `mergeDomains`, documents of the same domain are merged and duplicate composite keys
 * across them are errors; otherwise a repeated domain is an error.
 */
export function buildConfig(
  documents: readonly ConfigDocument[],
  mergeDomains: boolean,
  store?: StoreCapabilities,
): RateLimitConfig {
  const roots = new Map<string, MutableLevel>();
  const rules: RateLimitRule[] = [];
  for (const doc of documents) {
    if (doc.domain === '') throw new ConfigError(doc.name, 'config file cannot have empty domain');
    let root = roots.get(doc.domain);
    if (root && !mergeDomains) {
      throw new ConfigError(doc.name, `duplicate domain '${doc.domain}' in config file`);
    }
    if (!root) {
      root = newLevel();
      roots.set(doc.domain, root);
    }
    loadDescriptors(doc.name, `${doc.domain}.`, doc.descriptors, root, rules, store);
  }
  const domains = new Map([...roots].map(([domain, root]) => [domain, { domain, root }]));
  return { domains, rules };
}

function newLevel(): MutableLevel {
  return { byKey: new Map(), compositeKeys: new Set() };
}

function loadDescriptors(
  fileName: string,
  /** The parent's stat key with its separator. */
  parentStatKey: string,
  descriptors: readonly DescriptorConfig[],
  level: MutableLevel,
  rules: RateLimitRule[],
  store: StoreCapabilities | undefined,
): void {
  for (const descriptor of descriptors) {
    if (descriptor.key === '') throw new ConfigError(fileName, 'descriptor has empty key');
    const segment = descriptor.value === '' ? descriptor.key : `${descriptor.key}_${descriptor.value}`;
    const fullKey = flatten(parentStatKey + segment);
    if (level.compositeKeys.has(segment)) {
      throw new ConfigError(fileName, `duplicate descriptor composite key '${fullKey}'`);
    }
    const isWildcard = descriptor.value.endsWith('*');
    if (descriptor.shareThreshold && !isWildcard) {
      throw new ConfigError(
        fileName,
        `share_threshold can only be used with wildcard values (ending with '*'), but found key '${segment}'`,
      );
    }
    const rule = buildRule(
      fileName,
      fullKey,
      descriptor.rateLimit,
      descriptor.rateLimits,
      descriptor.shadowMode,
      store,
    );
    if (rule) rules.push(rule);

    let children: MutableLevel | undefined;
    if (descriptor.descriptors.length > 0) {
      children = newLevel();
      loadDescriptors(fileName, `${fullKey}.`, descriptor.descriptors, children, rules, store);
    }
    const node: DescriptorNode = {
      // Flat copies: the parser's slices of the YAML text are slower Map keys and keep the text alive.
      key: flatten(descriptor.key),
      value: flatten(descriptor.value),
      segment,
      prefix: isWildcard ? descriptor.value.slice(0, -1) : undefined,
      rule,
      defaultMatch: rule && { rule, statKey: rule.fullKey, sharedValues: undefined },
      children,
      detailedMetric: descriptor.detailedMetric,
      valueToMetric: descriptor.valueToMetric,
      shareThreshold: descriptor.shareThreshold,
    };
    level.compositeKeys.add(segment);
    addNode(level, node);
  }
}

function addNode(level: MutableLevel, node: DescriptorNode): void {
  let entries = level.byKey.get(node.key);
  if (!entries) {
    entries = { byValue: new Map(), wildcards: [], fallback: undefined };
    level.byKey.set(node.key, entries);
  }
  if (node.value === '') entries.fallback = node;
  else {
    // A wildcard is also reachable by its literal value, as in the reference's single map.
    entries.byValue.set(node.value, node);
    if (node.prefix !== undefined) entries.wildcards.push(node);
  }
}
