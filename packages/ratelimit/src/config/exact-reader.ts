import {
  type Document,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  parseDocument,
  type Scalar,
  Document as YamlDocument,
} from 'yaml';
import { ConfigError } from '../errors.js';
import type { ConfigSource } from '../provider/provider.js';
import { UINT32_MAX } from '../service/messages.js';
import type { ConfigDocument, DescriptorConfig, RateLimitBlock } from './document.js';

const VALID_KEYS = new Set([
  'domain',
  'key',
  'value',
  'descriptors',
  'rate_limit',
  'unit',
  'requests_per_unit',
  'unlimited',
  'shadow_mode',
  'name',
  'replaces',
  'detailed_metric',
  'value_to_metric',
  'share_threshold',
]);

/**
 * Parses one config source into a typed document, with the reference's error texts:
 * YAML errors, then the key allow-list walk, then the typed decoding (yaml.v2 semantics:
 * YAML 1.1 scalars, only the first document, non-string scalars accepted in string fields).
 */
export function readExactDocument(source: ConfigSource): ConfigDocument {
  const lines = new LineCounter();
  const doc =
    source.kind === 'yaml' ? parseYaml(source.name, source.text, lines) : new YamlDocument(source.value);
  const root = doc.contents;
  if (root !== null && !isMap(root) && !(isScalar(root) && root.value === null)) {
    throw new ConfigError(
      source.name,
      `error loading config file: yaml: unmarshal errors:\n  ${where(root, lines)}cannot unmarshal ${tagOf(root)} into map[interface {}]interface {}`,
    );
  }
  if (isMap(root)) validateKeys(source.name, root);
  const decoder = new TypedDecoder(lines);
  const domain = isMap(root) ? decoder.string(root.get('domain', true) as Node | undefined) : '';
  const descriptors = isMap(root)
    ? decoder.descriptors(root.get('descriptors', true) as Node | undefined)
    : [];
  if (decoder.errors.length > 0) {
    throw new ConfigError(
      source.name,
      `error loading config file: yaml: unmarshal errors:\n  ${decoder.errors.join('\n  ')}`,
    );
  }
  return { name: source.name, domain, descriptors };
}

function parseYaml(name: string, text: string, lineCounter: LineCounter): Document {
  // yaml.v2 reads only the first document of a stream, so later documents are ignored.
  const all = parseAllDocuments(text, { version: '1.1', uniqueKeys: true, lineCounter, stringKeys: false });
  const doc = Array.isArray(all) ? (all[0] ?? parseDocument('', { version: '1.1' })) : all;
  const error = doc.errors[0];
  if (error) {
    const headline = error.message.split('\n')[0] ?? error.message;
    const line = error.linePos?.[0].line;
    const reason = headline.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(name, `error loading config file: yaml: ${line ? `line ${line}: ` : ''}${reason}`);
  }
  return doc;
}

/** The reference's `validateYamlKeys`: map keys must be allow-listed strings, lists hold maps. */
function validateKeys(fileName: string, map: Node): void {
  if (!isMap(map)) return;
  for (const pair of map.items) {
    const key = pair.key as Node | null;
    const keyValue = isScalar(key) ? key.value : key;
    if (typeof keyValue !== 'string') {
      throw new ConfigError(fileName, `config error, key is not of type string: ${goText(key)}`);
    }
    if (!VALID_KEYS.has(keyValue)) throw new ConfigError(fileName, `config error, unknown key '${keyValue}'`);
    const value = pair.value as Node | null;
    if (isSeq(value)) {
      for (const element of value.items as Node[]) {
        if (!isMap(element)) {
          throw new ConfigError(
            fileName,
            `config error, yaml file contains list of type other than map: ${goText(element)}`,
          );
        }
        validateKeys(fileName, element);
      }
    } else if (isMap(value)) {
      validateKeys(fileName, value);
    } else if (value !== null && isScalar(value) && !isLeaf(value)) {
      throw new ConfigError(fileName, 'error checking config');
    }
  }
}

/** Leaves the reference accepts: string, int, bool and null. */
function isLeaf(scalar: Scalar): boolean {
  const value = scalar.value;
  return value === null || typeof value === 'string' || typeof value === 'boolean' || isInteger(scalar);
}

function isInteger(scalar: Scalar): boolean {
  if (typeof scalar.value === 'bigint') return true;
  if (typeof scalar.value !== 'number' || !Number.isInteger(scalar.value)) return false;
  // 1.0 is an integer number in JavaScript but a float in YAML.
  return (
    scalar.source === undefined ||
    !/^[-+]?[0-9_]*\.|[eE]/.test(scalar.source) ||
    /^[-+]?0x/.test(scalar.source)
  );
}

/** Renders a YAML node the way Go's `%v` renders the decoded value. */
function goText(node: Node | null): string {
  if (node === null) return '<nil>';
  if (isScalar(node)) return node.value === null ? '<nil>' : String(node.source ?? node.value);
  if (isMap(node)) return 'map[...]';
  if (isSeq(node)) return '[...]';
  return String(node);
}

function tagOf(node: Node): string {
  if (isMap(node)) return '!!map';
  if (isSeq(node)) return '!!seq';
  if (isScalar(node)) {
    if (typeof node.value === 'boolean') return `!!bool \`${node.source ?? node.value}\``;
    if (typeof node.value === 'number' || typeof node.value === 'bigint') {
      return `${isInteger(node) ? '!!int' : '!!float'} \`${node.source ?? node.value}\``;
    }
    return `!!str \`${node.source ?? node.value}\``;
  }
  return '!!unknown';
}

function where(node: Node, lines: LineCounter): string {
  const offset = node.range?.[0];
  if (offset === undefined || lines.lineStarts.length === 0) return '';
  return `line ${lines.linePos(offset).line}: `;
}

/** Decodes nodes into the typed document and collects yaml.v2-style unmarshal errors. */
class TypedDecoder {
  readonly errors: string[] = [];
  constructor(private readonly lines: LineCounter) {}

  private fail(node: Node, goType: string): void {
    this.errors.push(`${where(node, this.lines)}cannot unmarshal ${tagOf(node)} into ${goType}`);
  }

  string(node: Node | undefined | null): string {
    if (node === undefined || node === null) return '';
    if (isScalar(node)) return node.value === null ? '' : String(node.source ?? node.value);
    this.fail(node, 'string');
    return '';
  }

  bool(node: Node | undefined | null): boolean {
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) return false;
    if (isScalar(node) && typeof node.value === 'boolean') return node.value;
    this.fail(node, 'bool');
    return false;
  }

  uint32(node: Node | undefined | null): number {
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) return 0;
    if (isScalar(node) && isInteger(node)) {
      const value = Number(node.value);
      if (value >= 0 && value <= UINT32_MAX) return value;
    }
    this.fail(node, 'uint32');
    return 0;
  }

  private list(node: Node | undefined | null, goType: string): Node[] {
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) return [];
    if (isSeq(node)) return node.items as Node[];
    this.fail(node, goType);
    return [];
  }

  descriptors(node: Node | undefined | null): DescriptorConfig[] {
    return this.list(node, '[]config.YamlDescriptor').map((item) => this.descriptor(item));
  }

  private descriptor(node: Node): DescriptorConfig {
    if (!isMap(node)) {
      this.fail(node, 'config.YamlDescriptor');
      return { ...EMPTY_DESCRIPTOR };
    }
    const field = (name: string) => node.get(name, true) as Node | undefined;
    return {
      key: this.string(field('key')),
      value: this.string(field('value')),
      rateLimit: this.rateLimit(field('rate_limit')),
      descriptors: this.descriptors(field('descriptors')),
      shadowMode: this.bool(field('shadow_mode')),
      detailedMetric: this.bool(field('detailed_metric')),
      valueToMetric: this.bool(field('value_to_metric')),
      shareThreshold: this.bool(field('share_threshold')),
    };
  }

  private rateLimit(node: Node | undefined | null): RateLimitBlock | undefined {
    if (node === undefined || node === null || (isScalar(node) && node.value === null)) return undefined;
    if (!isMap(node)) {
      this.fail(node, 'config.YamlRateLimit');
      return undefined;
    }
    const field = (name: string) => node.get(name, true) as Node | undefined;
    const replaces = this.list(field('replaces'), '[]config.yamlReplaces').map((item) =>
      isMap(item) ? this.string(item.get('name', true) as Node | undefined) : '',
    );
    return {
      unit: this.string(field('unit')),
      requestsPerUnit: this.uint32(field('requests_per_unit')),
      unlimited: this.bool(field('unlimited')),
      name: this.string(field('name')),
      replaces,
    };
  }
}

const EMPTY_DESCRIPTOR: DescriptorConfig = {
  key: '',
  value: '',
  rateLimit: undefined,
  descriptors: [],
  shadowMode: false,
  detailedMetric: false,
  valueToMetric: false,
  shareThreshold: false,
};
