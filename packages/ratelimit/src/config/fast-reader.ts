import { FAILSAFE_SCHEMA, load, type State, Type } from 'js-yaml';
import { Document as YamlDocument } from 'yaml';
import { UINT32_MAX } from '../service/messages.js';
import type { ConfigDocument, DescriptorConfig, RateLimitBlock } from './document.js';

/*
 * The fast reader parses with js-yaml (about ten times faster than building a `yaml` Document)
 * and returns a result only when the exact reader would return the very same document. Whenever
 * that is not certain it returns undefined and the caller takes the exact reader, which also owns
 * every error message. It is certain when:
 *  - js-yaml parses the text without error, as one document, with no anchor, alias or explicit tag;
 *  - every scalar sits on one line with no escapes, so both parsers read the same characters;
 *  - every flow collection sits on one line (`yaml` rejects badly indented multi-line ones);
 *  - the text has no tab, lone CR, YAML 1.1 line break (NEL, LS, PS) or directive;
 *  - every map has only the keys the decoder reads at that level, and every lower level is a list
 *    of maps or a map, as the schema wants;
 *  - every plain scalar resolves, under the `yaml` package's own YAML 1.1 tag tests, to a type whose
 *    decoding is unambiguous for its field: null, a string, a bool word or a decimal integer in a
 *    string field (the exact reader keeps the source text), `true`/`false` in a bool field, a
 *    decimal in range in requests_per_unit. Quoted scalars are accepted only in string fields.
 */

/** A plain (unquoted) scalar: its type is decided later, by YAML 1.1 rules, for the field it fills. */
class PlainScalar {
  constructor(readonly text: string) {}
  // js-yaml stringifies map keys; this keeps a plain key's text rather than '[object Object]'.
  get [Symbol.toStringTag](): string {
    return 'PlainScalar';
  }
  toString(): string {
    return this.text;
  }
}

const PLAIN_TAG = 'tag:platform.ratelimit,2025:plain';

/** Strings, lists and maps as they are, and every plain scalar kept as its text. */
const SCHEMA = FAILSAFE_SCHEMA.extend({
  implicit: [
    new Type(PLAIN_TAG, {
      kind: 'scalar',
      resolve: () => true,
      construct: (text: string) => new PlainScalar(text),
    }),
  ],
});

/** The parser state js-yaml hands to its listener; `tag` and `anchor` are not in its typings. */
interface ParserState extends State {
  tag: string | null;
  anchor: string | null;
}

/** Thrown inside the fast reader to give up; never leaves this module. */
const AMBIGUOUS = new Error('ambiguous for the fast config reader');

const UNSUPPORTED_TEXT = /[\t\u0085\u2028\u2029]|\r(?!\n)|^%/m;

/** The document's YAML, or undefined when only the exact reader can tell what it means. */
export function readUnambiguousYaml(name: string, text: string): ConfigDocument | undefined {
  if (UNSUPPORTED_TEXT.test(text)) return undefined;
  try {
    const root = load(text, { schema: SCHEMA, listener: nodeChecker() });
    const decoder = new Decoder();
    const fields = decoder.map(root, ROOT_KEYS);
    return {
      name,
      domain: decoder.string(fields.domain),
      descriptors: decoder.descriptors(fields.descriptors),
    };
  } catch {
    // A js-yaml error or AMBIGUOUS: either way the exact reader decides.
    return undefined;
  }
}

/** A js-yaml listener that throws AMBIGUOUS on the node forms listed at the top of this file. */
function nodeChecker(): (event: 'open' | 'close', state: State) => void {
  const openLines: number[] = [];
  return (event, state) => {
    if (event === 'open') {
      openLines.push(state.line);
      return;
    }
    const node = state as ParserState;
    // The line where js-yaml began to look for this node, at or before its first character.
    const openLine = openLines.pop();
    if (node.anchor !== null || (node.tag !== null && node.tag !== PLAIN_TAG)) throw AMBIGUOUS;
    if (node.kind === 'scalar') {
      if (!isVerbatimScalar(node.input, node.position, node.result)) throw AMBIGUOUS;
    } else if (node.line !== openLine && endsWithFlowBracket(node.input, node.position)) {
      throw AMBIGUOUS;
    }
  };
}

/**
 * True when the scalar ending at `end` is its own text verbatim on one line: a plain scalar, or one
 * quoted with no escapes. Folding a line break or reading an escape always changes the text, so
 * matching the source proves neither happened.
 */
function isVerbatimScalar(input: string, end: number, value: unknown): boolean {
  if (value instanceof PlainScalar) {
    let last = end;
    // A plain scalar cut by a comment or a flow indicator ends before the spaces that precede it.
    while (last > 0 && input.charCodeAt(last - 1) === SPACE) last--;
    return input.startsWith(value.text, last - value.text.length);
  }
  if (typeof value !== 'string') return false;
  const quote = input.charCodeAt(end - 1);
  if (quote !== SINGLE_QUOTE && quote !== DOUBLE_QUOTE) return false;
  const start = end - 1 - value.length;
  return input.charCodeAt(start - 1) === quote && input.startsWith(value, start);
}

/** A flow collection ends with its bracket (a block collection only at the end of a file). */
function endsWithFlowBracket(input: string, end: number): boolean {
  const last = input.charCodeAt(end - 1);
  return last === CLOSE_BRACE || last === CLOSE_BRACKET;
}

const SPACE = 0x20;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

const ROOT_KEYS = new Set(['domain', 'descriptors']);
const DESCRIPTOR_KEYS = new Set([
  'key',
  'value',
  'rate_limit',
  'descriptors',
  'shadow_mode',
  'detailed_metric',
  'value_to_metric',
  'share_threshold',
]);
const RATE_LIMIT_KEYS = new Set(['unit', 'requests_per_unit', 'unlimited', 'name', 'replaces']);
const REPLACES_KEYS = new Set(['name']);

/** The implicit scalar tags of the exact reader's YAML 1.1 schema, in the order it tries them. */
const YAML_11_TAGS = new YamlDocument(null, { version: '1.1' }).schema.tags.flatMap((tag) =>
  tag.default === true && 'test' in tag && tag.test ? [{ tag: tag.tag, test: tag.test }] : [],
);

const TAG = {
  null: 'tag:yaml.org,2002:null',
  bool: 'tag:yaml.org,2002:bool',
  int: 'tag:yaml.org,2002:int',
  str: 'tag:yaml.org,2002:str',
} as const;

const DECIMAL = /^(?:0|[1-9][0-9]*)$/;

type Fields = Readonly<Record<string, unknown>>;

/** Turns js-yaml values into the typed document, throwing AMBIGUOUS instead of any error. */
class Decoder {
  /** YAML 1.1 tag per plain text; config values repeat, the tag tests are regular expressions. */
  private readonly tags = new Map<string, string>();

  private tagOf(text: string): string {
    let tag = this.tags.get(text);
    if (tag === undefined) {
      tag = YAML_11_TAGS.find((candidate) => candidate.test.test(text))?.tag ?? TAG.str;
      this.tags.set(text, tag);
    }
    return tag;
  }

  /** A map whose keys are all strings from `allowed`. */
  map(value: unknown, allowed: ReadonlySet<string>): Fields {
    if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof PlainScalar) {
      throw AMBIGUOUS;
    }
    // js-yaml has turned the keys into strings; every allowed name is a string in YAML 1.1 as well.
    for (const key of Object.keys(value)) {
      if (!allowed.has(key)) throw AMBIGUOUS;
    }
    return value as Fields;
  }

  string(value: unknown): string {
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return value;
    if (!(value instanceof PlainScalar)) throw AMBIGUOUS;
    switch (this.tagOf(value.text)) {
      case TAG.null:
        return '';
      case TAG.str:
      case TAG.bool:
        return value.text;
      case TAG.int:
        if (DECIMAL.test(value.text)) return value.text;
        throw AMBIGUOUS;
      default:
        throw AMBIGUOUS;
    }
  }

  bool(value: unknown): boolean {
    if (value === undefined || value === null) return false;
    if (value instanceof PlainScalar) {
      if (value.text === 'true') return true;
      if (value.text === 'false') return false;
      if (this.tagOf(value.text) === TAG.null) return false;
    }
    throw AMBIGUOUS;
  }

  uint32(value: unknown): number {
    if (value === undefined || value === null) return 0;
    if (value instanceof PlainScalar) {
      const tag = this.tagOf(value.text);
      if (tag === TAG.null) return 0;
      if (tag === TAG.int && DECIMAL.test(value.text)) {
        const number = Number(value.text);
        if (number <= UINT32_MAX) return number;
      }
    }
    throw AMBIGUOUS;
  }

  private list(value: unknown): readonly unknown[] {
    if (value === undefined || value === null) return [];
    if (value instanceof PlainScalar && this.tagOf(value.text) === TAG.null) return [];
    if (!Array.isArray(value)) throw AMBIGUOUS;
    return value;
  }

  descriptors(value: unknown): DescriptorConfig[] {
    return this.list(value).map((item) => this.descriptor(item));
  }

  private descriptor(value: unknown): DescriptorConfig {
    const fields = this.map(value, DESCRIPTOR_KEYS);
    return {
      key: this.string(fields.key),
      value: this.string(fields.value),
      rateLimit: this.rateLimit(fields.rate_limit),
      descriptors: this.descriptors(fields.descriptors),
      shadowMode: this.bool(fields.shadow_mode),
      detailedMetric: this.bool(fields.detailed_metric),
      valueToMetric: this.bool(fields.value_to_metric),
      shareThreshold: this.bool(fields.share_threshold),
    };
  }

  private rateLimit(value: unknown): RateLimitBlock | undefined {
    if (value === undefined || value === null) return undefined;
    if (value instanceof PlainScalar && this.tagOf(value.text) === TAG.null) return undefined;
    const fields = this.map(value, RATE_LIMIT_KEYS);
    return {
      unit: this.string(fields.unit),
      requestsPerUnit: this.uint32(fields.requests_per_unit),
      unlimited: this.bool(fields.unlimited),
      name: this.string(fields.name),
      replaces: this.list(fields.replaces).map((item) => this.string(this.map(item, REPLACES_KEYS).name)),
    };
  }
}
