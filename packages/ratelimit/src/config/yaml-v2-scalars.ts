/**
 * Scalars as gopkg.in/yaml.v2 (v2.4.0, which the reference uses) resolves and prints them:
 * `resolve.go` for the tag and Go value of a scalar, and fmt's `%v` / `%#v` for error texts.
 */

/** A Go value decoded into `interface{}`: ints as bigint (int64 or uint64 range), floats as number. */
export type GoValue = string | bigint | number | boolean | null | GoValue[] | Map<GoValue, GoValue>;

/** A scalar's short tag (`!!str`, `!!int`, ..., or an explicit tag yaml.v2 does not resolve) and value. */
export interface Resolved {
  readonly tag: string;
  readonly value: GoValue;
}

/** A yaml.v2 failure that ends the decode at once (its `failf`); the message follows `yaml: `. */
export class YamlFatal extends Error {}

const LONG_TAG_PREFIX = 'tag:yaml.org,2002:';

export function shortTag(tag: string): string {
  return tag.startsWith(LONG_TAG_PREFIX) ? `!!${tag.slice(LONG_TAG_PREFIX.length)}` : tag;
}

const RESOLVABLE_TAGS = new Set(['', '!!str', '!!bool', '!!int', '!!float', '!!null', '!!timestamp']);

/** resolve.go's resolveMap: the words that are not strings. */
const WORDS = new Map<string, Resolved>();
for (const [tag, value, words] of [
  ['!!bool', true, ['y', 'Y', 'yes', 'Yes', 'YES', 'true', 'True', 'TRUE', 'on', 'On', 'ON']],
  ['!!bool', false, ['n', 'N', 'no', 'No', 'NO', 'false', 'False', 'FALSE', 'off', 'Off', 'OFF']],
  ['!!null', null, ['', '~', 'null', 'Null', 'NULL']],
  ['!!float', Number.NaN, ['.nan', '.NaN', '.NAN']],
  ['!!float', Number.POSITIVE_INFINITY, ['.inf', '.Inf', '.INF', '+.inf', '+.Inf', '+.INF']],
  ['!!float', Number.NEGATIVE_INFINITY, ['-.inf', '-.Inf', '-.INF']],
] as const) {
  for (const word of words) WORDS.set(word, { tag, value });
}

/** First characters after which resolve.go looks further than `!!str` (its resolveTable). */
const HINTED = /^[-+0-9yYnNtTfFoO~.]/;
const YAML_STYLE_FLOAT = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
/**
 * strconv.ParseFloat's syntax for a text starting with `.` (yaml.v2 hands such a text to it as it
 * is): digits with single underscores between them, in the fraction and the exponent.
 */
const DOT_FLOAT = /^\.[0-9]+(?:_[0-9]+)*(?:[eE][-+]?[0-9]+(?:_[0-9]+)*)?$/;
/** Go's strconv.ParseInt(s, 0, 64) syntax: sign, then a 0x/0o/0b prefix, a leading-0 octal or decimal. */
const GO_INT = /^([-+]?)(?:0[xX]([0-9a-fA-F]+)|0[oO]([0-7]+)|0[bB]([01]+)|0([0-7]*)|([1-9][0-9]*))$/;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

/**
 * The tag and value of a scalar: `text` is its value as the parser gives it, `tag` its
 * explicit tag in short form ('' when none), `plain` whether it was written unquoted.
 */
export function resolveScalar(text: string, tag: string, plain: boolean): Resolved {
  if (tag === '' && !plain) return { tag: '!!str', value: text };
  if (tag === '!!binary') return { tag, value: decodeBinary(text) };
  if (!RESOLVABLE_TAGS.has(tag)) return { tag, value: text };
  const resolved = tag === '!!str' ? { tag: '!!str', value: text } : resolveText(text, tag);
  if (tag === '' || tag === '!!str' || tag === resolved.tag) return resolved;
  if (tag === '!!float' && resolved.tag === '!!int') return { tag, value: Number(resolved.value) };
  throw new YamlFatal(`cannot decode ${resolved.tag} \`${text}\` as a ${tag}`);
}

function resolveText(text: string, tag: string): Resolved {
  if (text !== '' && !HINTED.test(text)) return { tag: '!!str', value: text };
  const word = WORDS.get(text);
  if (word) return word;
  if (text.startsWith('.')) {
    const float = DOT_FLOAT.test(text) ? Number(text.replaceAll('_', '')) : Number.NaN;
    return Number.isFinite(float) ? { tag: '!!float', value: float } : { tag: '!!str', value: text };
  }
  if (/^[-+0-9]/.test(text)) {
    // Timestamps decode to their text wherever the reference's config reads them.
    if ((tag === '' || tag === '!!timestamp') && isTimestamp(text))
      return { tag: '!!timestamp', value: text };
    const plain = text.replaceAll('_', '');
    const int = parseGoInt(plain);
    if (int !== undefined) return { tag: '!!int', value: int };
    if (YAML_STYLE_FLOAT.test(plain)) {
      const float = Number(plain);
      // strconv.ParseFloat fails on overflow, and the text stays a string.
      if (Number.isFinite(float)) return { tag: '!!float', value: float };
    }
  }
  return { tag: '!!str', value: text };
}

/** Go's base64.StdEncoding: padded, the standard alphabet; CR and LF anywhere are skipped. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * A `!!binary` scalar's value: yaml.v2 decodes it as base64 into a Go string of its bytes (read
 * here as UTF-8), and fails the whole decode on invalid base64.
 */
function decodeBinary(text: string): string {
  const packed = text.replace(/[\r\n]/g, '');
  if (!BASE64.test(packed)) throw new YamlFatal('!!binary value contains invalid base64 data');
  return Buffer.from(packed, 'base64').toString('utf8');
}

/**
 * libyaml's reader check (yaml_parser_update_buffer): a character outside tab, LF, CR, the
 * printable ASCII, NEL, U+00A0-U+D7FF, U+E000-U+FFFD and U+10000 up makes yaml.v2 refuse the input.
 */
const CONTROL_CHARACTER = /[^\t\n\r\x20-\x7e\x85\u00a0-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/u;

/** Whether the input holds a character yaml.v2's reader refuses ("control characters are not allowed"). */
export function hasControlCharacter(text: string): boolean {
  return CONTROL_CHARACTER.test(text);
}

/** strconv.ParseInt(s, 0, 64), then ParseUint(s, 0, 64) (which takes no sign); undefined when both fail. */
function parseGoInt(text: string): bigint | undefined {
  const match = GO_INT.exec(text);
  if (!match) return undefined;
  const [, sign, hex, octal, binary, legacyOctal, decimal] = match;
  let magnitude: bigint;
  if (hex !== undefined) magnitude = BigInt(`0x${hex}`);
  else if (octal !== undefined) magnitude = BigInt(`0o${octal}`);
  else if (binary !== undefined) magnitude = BigInt(`0b${binary}`);
  else if (legacyOctal !== undefined) magnitude = legacyOctal === '' ? 0n : BigInt(`0o${legacyOctal}`);
  else magnitude = BigInt(decimal as string);
  const value = sign === '-' ? -magnitude : magnitude;
  if (value >= INT64_MIN && value <= INT64_MAX) return value;
  if (sign === '' && value <= UINT64_MAX) return value;
  return undefined;
}

/** parseTimestamp's quick check and formats: a date, optionally with a time. */
function isTimestamp(text: string): boolean {
  return /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:([Tt ])[0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[-+][0-9]{2}:[0-9]{2})?)?$/.test(
    text,
  );
}

/** Whether a resolved int is a Go `int` (64-bit), the only integer leaf the reference's key check takes. */
export function isGoInt(value: bigint): boolean {
  return value >= INT64_MIN && value <= INT64_MAX;
}

/** Go's `%v`. */
export function goText(value: GoValue): string {
  if (value === null) return '<nil>';
  if (typeof value === 'number') return goFloat(value);
  if (Array.isArray(value)) return `[${value.map(goText).join(' ')}]`;
  if (value instanceof Map) {
    const pairs = [...value].map(([key, item]) => `${goText(key)}:${goText(item)}`).sort();
    return `map[${pairs.join(' ')}]`;
  }
  return String(value);
}

/** Go's `%#v` of a value held in an `interface{}`. */
export function goSyntax(value: GoValue): string {
  if (value === null) return 'interface {}(nil)';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return goFloat(value);
  if (Array.isArray(value)) return `[]interface {}{${value.map(goSyntax).join(', ')}}`;
  if (value instanceof Map) {
    const pairs = [...value].map(([key, item]) => `${goSyntax(key)}:${goSyntax(item)}`).sort();
    return `map[interface {}]interface {}{${pairs.join(', ')}}`;
  }
  return String(value);
}

/** strconv.FormatFloat(f, 'g', -1, 64), which `%v` prints: an exponent below -4 or from 6 on is written out. */
function goFloat(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  const exponent = value === 0 ? 0 : Math.floor(Math.log10(Math.abs(value)));
  if (exponent >= -4 && exponent < 6) return String(value);
  const [mantissa, power] = value.toExponential().split('e') as [string, string];
  const digits = power.replace(/^[-+]/, '');
  return `${mantissa}e${power.startsWith('-') ? '-' : '+'}${digits.padStart(2, '0')}`;
}
