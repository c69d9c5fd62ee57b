import {
  type Alias,
  type Document,
  isAlias,
  isMap,
  isScalar,
  isSeq,
  LineCounter,
  type Node,
  parseAllDocuments,
  parseDocument,
  type Scalar,
  visit,
  type YAMLMap,
  Document as YamlDocument,
} from 'yaml';
import type { ConfigSource } from '../config/source.js';
import { ConfigError } from '../errors.js';
import { UINT32_MAX } from '../protocol/messages.js';
import type { ConfigDocument, DescriptorConfig, RateLimitBlock } from './document.js';
import {
  type GoValue,
  goSyntax,
  goText,
  hasControlCharacter,
  isGoInt,
  type Resolved,
  resolveScalar,
  shortTag,
  YamlFatal,
} from './yaml-v2-scalars.js';

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
  'rate_limits',
  'algorithm',
  'burst',
  'unit_multiplier',
]);

/** New fields whose scalars the tree builder checks, with messages that say what is wrong. */
const CHECKED_WHEN_BUILT = new Set(['burst', 'unit_multiplier']);

/**
 * Reads one config source into a typed document as the reference does (`ConfigFileContentToYaml`
 * with gopkg.in/yaml.v2 v2.4.0): the first document of the stream, yaml.v2's scalar resolution,
 * anchors, aliases and `<<` merge keys resolved, and a repeated key taken as its last value. Two
 * passes, like the reference: the document decoded as generic maps for the key allow-list
 * (`validateYamlKeys`), then decoded into the typed document, collecting yaml.v2's unmarshal errors.
 */
export function readConfigDocument(source: ConfigSource): ConfigDocument {
  const lines = new LineCounter();
  const doc =
    source.kind === 'yaml' ? parseYaml(source.name, source.text, lines) : new YamlDocument(source.value);
  try {
    const anchors = resolveAliases(doc);
    const root = doc.contents as Node | null;
    if (root !== null && !isMap(root) && !isNull(root)) {
      throw new ConfigError(
        source.name,
        `error loading config file: yaml: unmarshal errors:\n  ${lineOf(root, lines)}cannot unmarshal ${tagOf(root as Node)} into map[interface {}]interface {}`,
      );
    }
    const generic = new Decoder(anchors, lines).generic(root);
    if (generic instanceof Map) validateKeys(source.name, generic);
    const typed = new Decoder(anchors, lines);
    const document = typed.root(source.name, root);
    if (typed.errors.length > 0) {
      throw new ConfigError(
        source.name,
        `error loading config file: yaml: unmarshal errors:\n  ${typed.errors.join('\n  ')}`,
      );
    }
    return document;
  } catch (error) {
    if (error instanceof YamlFatal) {
      throw new ConfigError(source.name, `error loading config file: yaml: ${error.message}`);
    }
    throw error;
  }
}

function parseYaml(name: string, text: string, lineCounter: LineCounter): Document {
  // libyaml checks every character it reads, before parsing: the whole file is refused.
  if (hasControlCharacter(text)) {
    throw new ConfigError(name, 'error loading config file: yaml: control characters are not allowed');
  }
  // The failsafe schema leaves every scalar a string: yaml.v2's own resolution is applied later.
  const options = { version: '1.1', schema: 'failsafe', uniqueKeys: false, lineCounter } as const;
  // yaml.v2 reads only the first document of a stream, so later documents are ignored.
  const all = parseAllDocuments(text, options);
  const doc = Array.isArray(all) ? (all[0] ?? parseDocument('', options)) : all;
  const error = doc.errors.find((candidate) => !isLibyamlComment(text, candidate.pos[0], candidate.code));
  if (error) {
    const headline = error.message.split('\n')[0] ?? error.message;
    const line = error.linePos?.[0].line;
    const reason = headline.replace(/ at line \d+, column \d+:?$/, '');
    throw new ConfigError(name, `error loading config file: yaml: ${line ? `line ${line}: ` : ''}${reason}`);
  }
  return doc;
}

/**
 * libyaml starts a comment at any `#` after a quoted scalar or a closed flow collection, e.g.
 * `domain: "d"#c`; the YAML spec (and the `yaml` package) want white space before it.
 */
function isLibyamlComment(text: string, offset: number, code: string): boolean {
  if (code !== 'MISSING_CHAR' || text[offset] !== '#') return false;
  const before = text[offset - 1];
  return before === '"' || before === "'" || before === ']' || before === '}';
}

/**
 * The node each alias stands for: the last node given its anchor before the alias, as yaml.v2's
 * parser records anchors. An alias to an anchor not (yet) defined fails the whole read.
 */
function resolveAliases(doc: Document): Map<Alias, Node> {
  const anchors = new Map<string, Node>();
  const targets = new Map<Alias, Node>();
  visit(doc, (_key, node) => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (!target) throw new YamlFatal(`unknown anchor '${node.source}' referenced`);
      targets.set(node, target);
    } else if ((isScalar(node) || isMap(node) || isSeq(node)) && node.anchor) {
      anchors.set(node.anchor, node);
    }
  });
  return targets;
}

/** The reference's `validateYamlKeys`: map keys are allow-listed strings, lists hold maps, leaves are simple. */
function validateKeys(fileName: string, map: Map<GoValue, GoValue>): void {
  for (const [key, value] of map) {
    if (typeof key !== 'string') {
      throw new ConfigError(fileName, `config error, key is not of type string: ${goText(key)}`);
    }
    if (!VALID_KEYS.has(key)) throw new ConfigError(fileName, `config error, unknown key '${key}'`);
    if (Array.isArray(value)) {
      for (const element of value) {
        if (!(element instanceof Map)) {
          throw new ConfigError(
            fileName,
            `config error, yaml file contains list of type other than map: ${goText(element)}`,
          );
        }
        validateKeys(fileName, element);
      }
    } else if (value instanceof Map) {
      validateKeys(fileName, value);
    } else if (!isLeaf(value) && !CHECKED_WHEN_BUILT.has(key)) {
      throw new ConfigError(fileName, 'error checking config');
    }
  }
}

/** The leaves the reference's key check takes: string, int, bool and nil (a float or uint64 is not). */
function isLeaf(value: GoValue): boolean {
  if (typeof value === 'bigint') return isGoInt(value);
  return value === null || typeof value === 'string' || typeof value === 'boolean';
}

/** yaml.v2 v2.4.0's limits on alias expansion (`allowedAliasRatio`), against "billion laughs" documents. */
function allowedAliasRatio(decodeCount: number): number {
  const low = 400_000;
  const high = 4_000_000;
  if (decodeCount <= low) return 0.99;
  if (decodeCount >= high) return 0.1;
  return 0.99 - (0.89 * (decodeCount - low)) / (high - low);
}

/** A scalar with no text: yaml.v2 reads it as null. */
const EMPTY: Scalar = parseDocument('', { schema: 'failsafe' }).createNode(null) as Scalar;

/** The fields of one typed struct: what each key of a mapping sets. */
type Fields<T> = Readonly<Record<string, (decoder: Decoder, node: Node, out: T) => void>>;

/** One yaml.v2 `decoder`: one pass over the document, following aliases, with its unmarshal errors. */
class Decoder {
  readonly errors: string[] = [];
  private decodeCount = 0;
  private aliasCount = 0;
  private aliasDepth = 0;
  private readonly expanding = new Set<Alias>();

  constructor(
    private readonly anchors: ReadonlyMap<Alias, Node>,
    private readonly lines: LineCounter,
  ) {}

  /** yaml.v2's `unmarshal` entry: counts the node, follows an alias, then decodes the node it stands for. */
  private enter<T>(node: Node | null, decode: (node: Node) => T): T {
    this.decodeCount++;
    if (this.aliasDepth > 0) this.aliasCount++;
    if (
      this.aliasCount > 100 &&
      this.decodeCount > 1000 &&
      this.aliasCount / this.decodeCount > allowedAliasRatio(this.decodeCount)
    ) {
      throw new YamlFatal('document contains excessive aliasing');
    }
    if (node === null) return decode(EMPTY);
    if (!isAlias(node)) return decode(node);
    if (this.expanding.has(node)) throw new YamlFatal(`anchor '${node.source}' value contains itself`);
    this.expanding.add(node);
    this.aliasDepth++;
    try {
      return this.enter(this.anchors.get(node) as Node, decode);
    } finally {
      this.aliasDepth--;
      this.expanding.delete(node);
    }
  }

  // ---- The first pass: the document as Go's map[interface{}]interface{} ----

  generic(node: Node | null): GoValue {
    return this.enter(node, (target) => {
      if (isMap(target)) {
        const map = new Map<GoValue, GoValue>();
        this.mapInto(target, map);
        return map;
      }
      if (isSeq(target)) return (target.items as (Node | null)[]).map((item) => this.generic(item));
      return scalarOf(target as Scalar).value;
    });
  }

  private mapInto(node: YAMLMap, out: Map<GoValue, GoValue>): void {
    for (const pair of node.items) {
      const keyNode = pair.key as Node | null;
      const valueNode = pair.value as Node | null;
      if (isMergeKey(keyNode)) {
        this.merge(valueNode, (map) => this.enter(map, (target) => this.mapInto(target as YAMLMap, out)));
        continue;
      }
      const key = this.generic(keyNode);
      if (Array.isArray(key) || key instanceof Map) throw new YamlFatal(`invalid map key: ${goSyntax(key)}`);
      out.set(key, this.generic(valueNode));
    }
  }

  /**
   * yaml.v2's `merge`: the value of `<<` is a mapping, an alias of one, or a sequence of those,
   * applied last to first so that earlier ones win; they are applied where `<<` stands, so a key
   * written after it overrides it and one written before it is overridden.
   */
  private merge(node: Node | null, apply: (map: Node) => void): void {
    const kindOf = (candidate: Node | null) => (isAlias(candidate) ? this.anchors.get(candidate) : candidate);
    const wantMap = () => new YamlFatal('map merge requires map or sequence of maps as the value');
    if (isMap(kindOf(node))) {
      apply(node as Node);
    } else if (isSeq(node)) {
      const items = node.items as (Node | null)[];
      for (let i = items.length - 1; i >= 0; i--) {
        const item = items[i] as Node | null;
        if (!isMap(kindOf(item))) throw wantMap();
        apply(item as Node);
      }
    } else {
      throw wantMap();
    }
  }

  // ---- The second pass: the typed document (the reference's YamlRoot and its structs) ----

  root(name: string, node: Node | null): ConfigDocument {
    const root = { name, domain: '', descriptors: [] as DescriptorConfig[] };
    this.struct(node, 'config.YamlRoot', root, ROOT_FIELDS);
    return root;
  }

  /** Decodes a mapping into `out` field by field (a null leaves it as it is); false on a type error. */
  struct<T>(node: Node | null, goType: string, out: T, fields: Fields<T>): boolean {
    return this.enter(node, (target) => this.structBody(target, goType, out, fields));
  }

  /**
   * A pointer-to-struct field (the reference's `*YamlRateLimit`): a null clears it; otherwise
   * yaml.v2 decodes into the struct already there, so a repeated or merged key adds to it.
   */
  pointer<T>(
    node: Node,
    goType: string,
    current: T | undefined,
    zero: () => T,
    fields: Fields<T>,
  ): T | undefined {
    return this.enter(node, (target) => {
      if (isNull(target)) return undefined;
      const out = current ?? zero();
      this.structBody(target, goType, out, fields);
      return out;
    });
  }

  /** Keys with no field are ignored, as yaml.v2 does outside its strict mode. */
  private structBody<T>(target: Node, goType: string, out: T, fields: Fields<T>): boolean {
    if (!isMap(target)) {
      if (isNull(target)) return true;
      this.fail(target, goType);
      return false;
    }
    for (const pair of target.items) {
      const keyNode = pair.key as Node | null;
      const valueNode = (pair.value as Node | null) ?? EMPTY;
      if (isMergeKey(keyNode)) {
        this.merge(valueNode, (map) => this.struct(map, goType, out, fields));
        continue;
      }
      const field = this.fieldName(keyNode);
      const set = field === undefined || !Object.hasOwn(fields, field) ? undefined : fields[field];
      set?.(this, valueNode, out);
    }
    return true;
  }

  private fieldName(node: Node | null): string | undefined {
    return this.enter(node, (target) => {
      if (isScalar(target)) return stringOf(target);
      this.fail(target, 'string');
      return undefined;
    });
  }

  string(node: Node): string {
    return this.enter(node, (target) => {
      if (isScalar(target)) return stringOf(target);
      this.fail(target, 'string');
      return '';
    });
  }

  bool(node: Node): boolean {
    return this.enter(node, (target) => {
      const value = isScalar(target) ? scalarOf(target).value : undefined;
      if (value === null) return false;
      if (typeof value === 'boolean') return value;
      this.fail(target, 'bool');
      return false;
    });
  }

  uint32(node: Node): number {
    return this.enter(node, (target) => {
      const value = isScalar(target) ? scalarOf(target).value : undefined;
      if (value === null) return 0;
      if (typeof value === 'bigint' && value >= 0n && value <= BigInt(UINT32_MAX)) return Number(value);
      // A float is truncated, as Go's uint64(f) does; the key check refuses floats before this.
      if (typeof value === 'number' && value >= 0 && Math.trunc(value) <= UINT32_MAX)
        return Math.trunc(value);
      this.fail(target, 'uint32');
      return 0;
    });
  }

  /** A slice field: a null gives none; each element that decodes is kept, as yaml.v2's `sequence` does. */
  list<T>(node: Node, goType: string, element: (node: Node | null) => T | undefined): T[] {
    return this.enter(node, (target) => {
      if (isSeq(target)) {
        const decoded: T[] = [];
        for (const item of target.items as (Node | null)[]) {
          const value = element(item);
          if (value !== undefined) decoded.push(value);
        }
        return decoded;
      }
      if (!isNull(target)) this.fail(target, goType);
      return [];
    });
  }

  /** yaml.v2's `terror`: `line N: cannot unmarshal <tag> <value> into <type>`. */
  private fail(node: Node, goType: string): void {
    this.errors.push(`${lineOf(node, this.lines)}cannot unmarshal ${tagOf(node)} into ${goType}`);
  }
}

interface MutableDescriptor {
  key: string;
  value: string;
  rateLimit: MutableRateLimit | undefined;
  rateLimits?: RateLimitBlock[];
  descriptors: DescriptorConfig[];
  shadowMode: boolean;
  detailedMetric: boolean;
  valueToMetric: boolean;
  shareThreshold: boolean;
}

type MutableRateLimit = { -readonly [K in keyof RateLimitBlock]: RateLimitBlock[K] };

function descriptorList(decoder: Decoder, node: Node): DescriptorConfig[] {
  return decoder.list(node, '[]config.YamlDescriptor', (item) => {
    const descriptor: MutableDescriptor = {
      key: '',
      value: '',
      rateLimit: undefined,
      descriptors: [],
      shadowMode: false,
      detailedMetric: false,
      valueToMetric: false,
      shareThreshold: false,
    };
    return decoder.struct(item, 'config.YamlDescriptor', descriptor, DESCRIPTOR_FIELDS)
      ? descriptor
      : undefined;
  });
}

function zeroRateLimit(): MutableRateLimit {
  return { unit: '', requestsPerUnit: 0, unlimited: false, name: '', replaces: [] };
}

const ROOT_FIELDS: Fields<{ domain: string; descriptors: DescriptorConfig[] }> = {
  domain: (decoder, node, out) => {
    out.domain = decoder.string(node);
  },
  descriptors: (decoder, node, out) => {
    out.descriptors = descriptorList(decoder, node);
  },
};

const DESCRIPTOR_FIELDS: Fields<MutableDescriptor> = {
  key: (decoder, node, out) => {
    out.key = decoder.string(node);
  },
  value: (decoder, node, out) => {
    out.value = decoder.string(node);
  },
  rate_limit: (decoder, node, out) => {
    out.rateLimit = decoder.pointer(
      node,
      'config.YamlRateLimit',
      out.rateLimit,
      zeroRateLimit,
      RATE_LIMIT_FIELDS,
    );
  },
  rate_limits: (decoder, node, out) => {
    out.rateLimits = decoder.list(node, '[]config.YamlRateLimit', (item) => {
      const limit = zeroRateLimit();
      return decoder.struct(item, 'config.YamlRateLimit', limit, RATE_LIMIT_FIELDS) ? limit : undefined;
    });
  },
  descriptors: (decoder, node, out) => {
    out.descriptors = descriptorList(decoder, node);
  },
  shadow_mode: (decoder, node, out) => {
    out.shadowMode = decoder.bool(node);
  },
  detailed_metric: (decoder, node, out) => {
    out.detailedMetric = decoder.bool(node);
  },
  value_to_metric: (decoder, node, out) => {
    out.valueToMetric = decoder.bool(node);
  },
  share_threshold: (decoder, node, out) => {
    out.shareThreshold = decoder.bool(node);
  },
};

const RATE_LIMIT_FIELDS: Fields<MutableRateLimit> = {
  requests_per_unit: (decoder, node, out) => {
    out.requestsPerUnit = decoder.uint32(node);
  },
  unit: (decoder, node, out) => {
    out.unit = decoder.string(node);
  },
  unlimited: (decoder, node, out) => {
    out.unlimited = decoder.bool(node);
  },
  name: (decoder, node, out) => {
    out.name = decoder.string(node);
  },
  // The new fields are kept as written (null or empty is absent); the tree builder checks them.
  algorithm: (decoder, node, out) => {
    out.algorithm = decoder.string(node) || undefined;
  },
  burst: (decoder, node, out) => {
    out.burst = decoder.string(node) || undefined;
  },
  unit_multiplier: (decoder, node, out) => {
    out.unitMultiplier = decoder.string(node) || undefined;
  },
  replaces: (decoder, node, out) => {
    out.replaces = decoder.list(node, '[]config.yamlReplaces', (item) => {
      const replace = { name: '' };
      return decoder.struct(item, 'config.yamlReplaces', replace, REPLACE_FIELDS) ? replace.name : undefined;
    });
  },
};

const REPLACE_FIELDS: Fields<{ name: string }> = {
  name: (decoder, node, out) => {
    out.name = decoder.string(node);
  },
};

/** The text yaml.v2 sees for a scalar: the parsed value, or a constructed (xDS) value's Go text. */
function textOf(node: Scalar): string {
  if (node.source !== undefined) return node.source;
  return node.value === null ? '' : String(node.value);
}

/** A scalar decoded into a Go string: its text, '' for null, the decoded bytes of a !!binary. */
function stringOf(node: Scalar): string {
  const resolved = scalarOf(node);
  if (resolved.value === null) return '';
  return resolved.tag === '!!binary' ? (resolved.value as string) : textOf(node);
}

const resolvedCache = new WeakMap<Scalar, Resolved>();

/** A scalar's yaml.v2 tag and value. Constructed (xDS) scalars keep their JavaScript type. */
function scalarOf(node: Scalar): Resolved {
  let resolved = resolvedCache.get(node);
  if (resolved) return resolved;
  if (node.source === undefined) {
    const value = node.value;
    if (typeof value === 'number')
      resolved = Number.isInteger(value) ? { tag: '!!int', value: BigInt(value) } : { tag: '!!float', value };
    else if (typeof value === 'boolean') resolved = { tag: '!!bool', value };
    else if (value === null || value === undefined) resolved = { tag: '!!null', value: null };
    else resolved = { tag: '!!str', value: String(value) };
  } else {
    resolved = resolveScalar(node.source, node.tag ? shortTag(node.tag) : '', node.type === 'PLAIN');
  }
  resolvedCache.set(node, resolved);
  return resolved;
}

function isNull(node: Node): boolean {
  return isScalar(node) && scalarOf(node).value === null;
}

/** yaml.v2's `isMerge`: a plain `<<`, or one tagged !!merge. */
function isMergeKey(node: Node | null): boolean {
  if (!isScalar(node) || node.source !== '<<') return false;
  return node.tag ? shortTag(node.tag) === '!!merge' : node.type === 'PLAIN';
}

/** The tag and value of a node as yaml.v2's `terror` prints them. */
function tagOf(node: Node): string {
  if (isMap(node)) return node.tag ? shortTag(node.tag) : '!!map';
  if (isSeq(node)) return node.tag ? shortTag(node.tag) : '!!seq';
  const scalar = node as Scalar;
  const text = textOf(scalar);
  const bytes = Buffer.from(text);
  const shown = bytes.length > 10 ? `${bytes.subarray(0, 7).toString()}...` : text;
  return `${scalar.tag ? shortTag(scalar.tag) : scalarOf(scalar).tag} \`${shown}\``;
}

function lineOf(node: Node | null, lines: LineCounter): string {
  const offset = node?.range?.[0];
  if (offset === undefined || lines.lineStarts.length === 0) return '';
  return `line ${lines.linePos(offset).line}: `;
}
