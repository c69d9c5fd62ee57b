import { isUtf8 } from 'node:buffer';
import type { Entry } from '../config/match.js';
import { OVERRIDE_UNIT_NAMES } from '../limiter/units.js';
import type { RateLimitRequest, RequestDescriptor } from '../service/messages.js';

/** The body is not a proto3-JSON RateLimitRequest; /json answers 400 `Bad Request`. */
export class JsonRequestError extends Error {
  readonly code = 'RATELIMIT_BAD_JSON_REQUEST';
}

/**
 * Decodes a /json body as Go's protojson.Unmarshal (protobuf-go) decodes a RateLimitRequest,
 * in one pass over the text with no intermediate tree:
 * - the body is UTF-8 JSON: RFC 8259 syntax, white space of space, tab, CR and LF only, no
 *   unpaired surrogate escape, no control character in a string;
 * - a field is named by its JSON name or its proto name, each field at most once under either;
 *   an unknown field is an error; null leaves a field unset;
 * - an integer field takes a JSON number or a string holding one, in any form whose value is
 *   a whole number in range: `1e3`, `1.0`, `"-0"`; not `01`, `1.5`, `1e-400`, `" 1"`;
 * - uint32 fields take 0..2^32-1, the descriptor's hits_addend (UInt64Value) 0..2^64-1, kept
 *   exact (a bigint past 2^53 - 1: the service decides what it does);
 * - the override's unit takes an envoy.type.v3.RateLimitUnit name or any int32 number.
 */
export function decodeRateLimitRequest(body: Buffer): RateLimitRequest {
  if (!isUtf8(body)) throw new JsonRequestError('invalid UTF-8 in the body');
  const reader = new Reader(body.toString('utf8'));
  const request = reader.request();
  reader.end();
  return request;
}

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Each message's field names: the JSON name, then the proto name where it differs. */
const REQUEST_FIELDS = ['domain', 'descriptors', 'hitsAddend', 'hits_addend'];
const DESCRIPTOR_FIELDS = ['entries', 'limit', 'hitsAddend', 'hits_addend'];
const ENTRY_FIELDS = ['key', 'value'];
const OVERRIDE_FIELDS = ['unit', 'requestsPerUnit', 'requests_per_unit'];

const UINT32_MAX = 2n ** 32n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

/** A uint64 as a number while a double holds it exactly, else as the bigint itself. */
function exact(value: bigint): number | bigint {
  return value <= MAX_SAFE ? Number(value) : value;
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The path of a value in error messages, from the descriptor index `d` and entry index `e`
 * (-1 when not inside one) and a suffix. Built only when an error is thrown.
 */
function pathOf(d: number, e: number, suffix: string): string {
  if (d < 0) return suffix || 'body';
  if (e < 0) return `descriptors[${d}]${suffix}`;
  return `descriptors[${d}].entries[${e}]${suffix}`;
}

class Reader {
  at = 0;
  constructor(private readonly text: string) {}

  request(): RateLimitRequest {
    let domain = '';
    let descriptors: RequestDescriptor[] = [];
    let hitsAddend = 0;
    let seen = 0;
    this.open(OPEN_BRACE, -1, -1, '');
    if (!this.closes(CLOSE_BRACE)) {
      do {
        const field = this.field(REQUEST_FIELDS, -1, -1, '');
        switch (field) {
          case 0:
            seen = this.mark(seen, 1, field, REQUEST_FIELDS, -1, -1, '');
            if (!this.null()) domain = this.string(-1, -1, 'domain');
            break;
          case 1:
            seen = this.mark(seen, 2, field, REQUEST_FIELDS, -1, -1, '');
            if (!this.null()) descriptors = this.descriptors();
            break;
          default:
            seen = this.mark(seen, 4, field, REQUEST_FIELDS, -1, -1, '');
            if (!this.null()) hitsAddend = Number(this.integer(0n, UINT32_MAX, -1, 'hitsAddend'));
        }
      } while (this.next(CLOSE_BRACE));
    }
    return { domain, descriptors, hitsAddend };
  }

  private descriptors(): RequestDescriptor[] {
    const list: RequestDescriptor[] = [];
    this.open(OPEN_BRACKET, -1, -1, 'descriptors');
    if (this.closes(CLOSE_BRACKET)) return list;
    do list.push(this.descriptor(list.length));
    while (this.next(CLOSE_BRACKET));
    return list;
  }

  private descriptor(d: number): RequestDescriptor {
    const descriptor: {
      entries: Entry[];
      limit?: RequestDescriptor['limit'];
      hitsAddend?: RequestDescriptor['hitsAddend'];
    } = { entries: [] };
    let seen = 0;
    this.open(OPEN_BRACE, d, -1, '');
    if (this.closes(CLOSE_BRACE)) return descriptor;
    do {
      const field = this.field(DESCRIPTOR_FIELDS, d, -1, '');
      switch (field) {
        case 0:
          seen = this.mark(seen, 1, field, DESCRIPTOR_FIELDS, d, -1, '');
          if (!this.null()) descriptor.entries = this.entries(d);
          break;
        case 1:
          seen = this.mark(seen, 2, field, DESCRIPTOR_FIELDS, d, -1, '');
          if (!this.null()) descriptor.limit = this.override(d);
          break;
        default:
          seen = this.mark(seen, 4, field, DESCRIPTOR_FIELDS, d, -1, '');
          // A UInt64Value: its JSON form is the bare value. Past 2^53 it is the nearest double.
          if (!this.null())
            descriptor.hitsAddend = { value: exact(this.integer(0n, UINT64_MAX, d, '.hitsAddend')) };
      }
    } while (this.next(CLOSE_BRACE));
    return descriptor;
  }

  private entries(d: number): Entry[] {
    const list: Entry[] = [];
    this.open(OPEN_BRACKET, d, -1, '.entries');
    if (this.closes(CLOSE_BRACKET)) return list;
    do list.push(this.entry(d, list.length));
    while (this.next(CLOSE_BRACKET));
    return list;
  }

  private entry(d: number, e: number): Entry {
    let key = '';
    let value = '';
    let seen = 0;
    this.open(OPEN_BRACE, d, e, '');
    if (this.closes(CLOSE_BRACE)) return { key, value };
    do {
      if (this.field(ENTRY_FIELDS, d, e, '') === 0) {
        seen = this.mark(seen, 1, 0, ENTRY_FIELDS, d, e, '');
        if (!this.null()) key = this.string(d, e, '.key');
      } else {
        seen = this.mark(seen, 2, 1, ENTRY_FIELDS, d, e, '');
        if (!this.null()) value = this.string(d, e, '.value');
      }
    } while (this.next(CLOSE_BRACE));
    return { key, value };
  }

  private override(d: number): NonNullable<RequestDescriptor['limit']> {
    let requestsPerUnit = 0;
    let unit: string | number = 'UNKNOWN';
    let seen = 0;
    this.open(OPEN_BRACE, d, -1, '.limit');
    if (this.closes(CLOSE_BRACE)) return { requestsPerUnit, unit };
    do {
      const field = this.field(OVERRIDE_FIELDS, d, -1, '.limit');
      if (field === 0) {
        seen = this.mark(seen, 2, field, OVERRIDE_FIELDS, d, -1, '.limit');
        if (!this.null()) unit = this.unit(d);
      } else {
        seen = this.mark(seen, 1, field, OVERRIDE_FIELDS, d, -1, '.limit');
        if (!this.null()) requestsPerUnit = Number(this.integer(0n, UINT32_MAX, d, '.limit.requestsPerUnit'));
      }
    } while (this.next(CLOSE_BRACE));
    return { requestsPerUnit, unit };
  }

  /** An enum: a value name, or any int32 number (unknown numbers are kept; the service refuses them). */
  private unit(d: number): string | number {
    const at = this.skipSpace();
    if (this.text.charCodeAt(at) === QUOTE) {
      const name = this.string(d, -1, '.limit.unit');
      if (OVERRIDE_UNIT_NAMES.includes(name)) return name;
    } else {
      const number = integerOf(this.number(d, '.limit.unit'), INT32_MIN, INT32_MAX);
      if (number !== undefined) return OVERRIDE_UNIT_NAMES[Number(number)] ?? Number(number);
    }
    throw new JsonRequestError(
      `${pathOf(d, -1, '.limit.unit')} must be a RateLimitUnit name or int32 number`,
    );
  }

  /** An integer field: a JSON number or a string holding exactly one, whose value is whole and in range. */
  private integer(min: bigint, max: bigint, d: number, suffix: string): bigint {
    const at = this.skipSpace();
    const token = this.text.charCodeAt(at) === QUOTE ? this.string(d, -1, suffix) : this.number(d, suffix);
    // In a string the number must be the whole text (protojson reads it as one JSON token).
    const whole = this.text.charCodeAt(at) !== QUOTE || numberLength(token, 0) === token.length;
    const value = whole ? integerOf(token, min, max) : undefined;
    if (value === undefined) {
      throw new JsonRequestError(`${pathOf(d, -1, suffix)} must be an integer from ${min} to ${max}`);
    }
    return value;
  }

  /** A JSON number token's text. */
  private number(d: number, suffix: string): string {
    const start = this.skipSpace();
    const length = numberLength(this.text, start);
    if (length <= 0) throw new JsonRequestError(`${pathOf(d, -1, suffix)}: invalid value at offset ${start}`);
    this.at = start + length;
    return this.text.slice(start, this.at);
  }

  /** `null` (consumed, true) or anything else (left, false). */
  private null(): boolean {
    const at = this.skipSpace();
    const text = this.text;
    if (
      text.charCodeAt(at) !== 0x6e ||
      !text.startsWith('null', at) ||
      isNotDelimiter(text.charCodeAt(at + 4))
    ) {
      return false;
    }
    this.at = at + 4;
    return true;
  }

  /**
   * A member's name and its colon, as the index of the field in `names`. Names are matched in
   * place; one with an escape is decoded first. A name not in `names` is an error.
   */
  private field(names: readonly string[], d: number, e: number, suffix: string): number {
    const text = this.text;
    const at = this.skipSpace();
    if (text.charCodeAt(at) !== QUOTE) throw this.syntax('a field name');
    let index = -1;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const end = at + 1 + name.length;
      if (text.charCodeAt(end) === QUOTE && text.startsWith(name, at + 1)) {
        this.at = end + 1;
        index = i;
        break;
      }
    }
    if (index < 0) {
      const name = this.string(d, e, 'field name');
      index = names.indexOf(name);
      if (index < 0) throw new JsonRequestError(`unknown field "${name}" in ${pathOf(d, e, suffix)}`);
    }
    if (text.charCodeAt(this.skipSpace()) !== COLON) throw this.syntax("':'");
    this.at++;
    return index;
  }

  /** A JSON string: sliced straight from the text when it has no escape. */
  private string(d: number, e: number, suffix: string): string {
    const text = this.text;
    const start = this.skipSpace();
    if (text.charCodeAt(start) !== QUOTE) {
      throw new JsonRequestError(`${pathOf(d, e, suffix)} must be a string`);
    }
    let at = start + 1;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) break;
      if (code === BACKSLASH) return this.escapedString(start + 1);
      if (code < SPACE || Number.isNaN(code)) throw this.syntax('the end of the string');
      at++;
    }
    this.at = at + 1;
    return text.slice(start + 1, at);
  }

  private escapedString(from: number): string {
    const text = this.text;
    let out = '';
    let chunk = from;
    let at = from;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code === QUOTE) break;
      if (code < SPACE || Number.isNaN(code)) throw this.syntax('the end of the string');
      if (code !== BACKSLASH) {
        at++;
        continue;
      }
      out += text.slice(chunk, at);
      const escaped = text[at + 1];
      if (escaped === 'u') {
        let unit = hex4(text, at + 2);
        at += 6;
        if (unit >= 0xd800 && unit <= 0xdfff) {
          // Go's utf16.DecodeRune: a high surrogate escape followed by a low one, nothing else.
          const low = text[at] === '\\' && text[at + 1] === 'u' ? hex4(text, at + 2) : -1;
          if (unit > 0xdbff || low < 0xdc00 || low > 0xdfff) throw this.syntax('a surrogate pair', at - 6);
          out += String.fromCharCode(unit);
          unit = low;
          at += 6;
        }
        if (unit < 0) throw this.syntax('four hex digits', at - 6);
        out += String.fromCharCode(unit);
      } else {
        const decoded = escaped === undefined ? undefined : ESCAPES[escaped];
        if (decoded === undefined) throw this.syntax('a valid escape', at);
        out += decoded;
        at += 2;
      }
      chunk = at;
    }
    this.at = at + 1;
    return out + text.slice(chunk, at);
  }

  private open(bracket: number, d: number, e: number, suffix: string): void {
    const at = this.skipSpace();
    if (this.text.charCodeAt(at) !== bracket) {
      const kind = bracket === OPEN_BRACE ? 'a JSON object' : 'a JSON array';
      throw new JsonRequestError(`${pathOf(d, e, suffix)} must be ${kind}`);
    }
    this.at = at + 1;
  }

  /** Consumes `close` right after an opening bracket (an empty object or array). */
  private closes(close: number): boolean {
    const at = this.skipSpace();
    if (this.text.charCodeAt(at) !== close) return false;
    this.at = at + 1;
    return true;
  }

  /** After a member or element: true on a comma, false on `close`. */
  private next(close: number): boolean {
    const at = this.skipSpace();
    const code = this.text.charCodeAt(at);
    this.at = at + 1;
    if (code === COMMA) return true;
    if (code === close) return false;
    throw this.syntax(`',' or '${String.fromCharCode(close)}'`, at);
  }

  end(): void {
    if (this.skipSpace() !== this.text.length) throw this.syntax('the end of the body');
  }

  private mark(
    seen: number,
    bit: number,
    field: number,
    names: readonly string[],
    d: number,
    e: number,
    suffix: string,
  ): number {
    if ((seen & bit) !== 0) {
      throw new JsonRequestError(`duplicate field "${names[field]}" in ${pathOf(d, e, suffix)}`);
    }
    return seen | bit;
  }

  private syntax(expected: string, at = this.at): JsonRequestError {
    return new JsonRequestError(`invalid JSON: expected ${expected} at offset ${at}`);
  }

  /** Skips JSON white space (space, tab, LF, CR); returns and keeps the new offset. */
  private skipSpace(): number {
    const text = this.text;
    let at = this.at;
    // Most tokens follow one another with no space between.
    if (text.charCodeAt(at) > SPACE) return at;
    for (;;) {
      const code = text.charCodeAt(at);
      if (code !== SPACE && code !== LF && code !== CR && code !== TAB) break;
      at++;
    }
    this.at = at;
    return at;
  }
}

const ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** The value of four hex digits at `at`, or -1. */
function hex4(text: string, at: number): number {
  let value = 0;
  for (let i = at; i < at + 4; i++) {
    const digit = Number.parseInt(text[i] ?? '', 16);
    if (Number.isNaN(digit)) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/** protobuf-go's isNotDelim: the characters that may not follow a number or a literal. */
function isNotDelimiter(code: number): boolean {
  return (
    code === 0x2d ||
    code === 0x2b ||
    code === 0x2e ||
    code === 0x5f ||
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39)
  );
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/**
 * The length of the JSON number at `start`, or -1: protobuf-go's `parseNumber`, including its
 * one leniency, an `e` with no digits before a delimiter (`1e,`), which reads as exponent 0.
 */
function numberLength(text: string, start: number): number {
  let at = start;
  if (text.charCodeAt(at) === 0x2d) at++;
  const first = text.charCodeAt(at);
  if (first === 0x30) at++;
  else if (first >= 0x31 && first <= 0x39) while (isDigit(text.charCodeAt(++at)));
  else return -1;
  if (text.charCodeAt(at) === 0x2e && isDigit(text.charCodeAt(at + 1))) {
    at++;
    while (isDigit(text.charCodeAt(++at)));
  }
  const e = text.charCodeAt(at);
  if ((e === 0x65 || e === 0x45) && at + 1 < text.length) {
    at++;
    const sign = text.charCodeAt(at);
    if (sign === 0x2b || sign === 0x2d) {
      at++;
      if (at >= text.length) return -1;
    }
    while (isDigit(text.charCodeAt(at))) at++;
  }
  if (at < text.length && isNotDelimiter(text.charCodeAt(at))) return -1;
  return at - start;
}

const NUMBER_PARTS = /^(-?)(?:0|([1-9][0-9]*))(?:\.([0-9]+))?(?:[eE]([-+]?[0-9]*))?$/;
/** Go's strconv.ParseInt(exp, 10, 32) range for the exponent. */
const EXPONENT_LIMIT = 2 ** 31;

/**
 * The integer a number token stands for, when it is whole and within [min, max]: protobuf-go's
 * `normalizeToIntString` (the fraction's trailing zeros dropped, the exponent applied, at most
 * 20 digits), then strconv.ParseInt/ParseUint. `-0` is 0.
 */
function integerOf(token: string, min: bigint, max: bigint): bigint | undefined {
  const parts = NUMBER_PARTS.exec(token);
  if (!parts) return undefined;
  const [, sign, integer = '', fraction = '', exponentText] = parts;
  const digits = fraction.replace(/0+$/, '');
  if (integer === '' && digits === '') return min <= 0n && max >= 0n ? 0n : undefined;
  let exponent = 0;
  if (exponentText !== undefined && exponentText !== '') {
    exponent = Number(exponentText);
    // An exponent of only a sign (`1e+` before a delimiter) is not an int32 either.
    if (!Number.isInteger(exponent) || exponent >= EXPONENT_LIMIT || exponent < -EXPONENT_LIMIT)
      return undefined;
  }
  let whole: string;
  if (exponent >= 0) {
    if (digits.length > exponent || integer.length + exponent > 20) return undefined;
    whole = integer + digits + '0'.repeat(exponent - digits.length);
  } else {
    const point = integer.length + exponent;
    if (digits.length > 0 || point < 0 || /[^0]/.test(integer.slice(point))) return undefined;
    whole = integer.slice(0, point);
  }
  const value = BigInt(whole === '' ? '0' : whole) * (sign === '-' ? -1n : 1n);
  return value >= min && value <= max ? value : undefined;
}
