import type { Entry } from '../config/match.js';
import { OVERRIDE_UNIT_NAMES } from '../limiter/units.js';
import { type RateLimitRequest, type RequestDescriptor, UINT32_MAX } from '../service/messages.js';

/** Longer digit runs could pass 2^53; they are left to the full decoder. */
const MAX_DIGITS = 15;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const DIGIT_0 = 0x30;
const DIGIT_9 = 0x39;

/**
 * A message's field names, the JSON and the proto name of a field next to each other, and the
 * bit of each name: both names of a field share one, so the field is taken once under either.
 */
interface Fields {
  readonly names: readonly string[];
  readonly bits: readonly number[];
}
const REQUEST_FIELDS: Fields = {
  names: ['domain', 'descriptors', 'hitsAddend', 'hits_addend'],
  bits: [1, 2, 4, 4],
};
const DESCRIPTOR_FIELDS: Fields = {
  names: ['entries', 'limit', 'hitsAddend', 'hits_addend'],
  bits: [1, 2, 4, 4],
};
const ENTRY_FIELDS: Fields = { names: ['key', 'value'], bits: [1, 2] };
const OVERRIDE_FIELDS: Fields = { names: ['unit', 'requestsPerUnit', 'requests_per_unit'], bits: [1, 2, 2] };

/** Thrown inside the scanner when the body leaves the common shape; never escapes it. */
const NOT_COMMON = Symbol('not the common request shape');

/**
 * Reads a /json body of the common shape in one pass over the text, without JSON.parse and
 * the generic object tree it builds. The common shape: known field names without escapes, each
 * at most once; strings without escapes; integers as plain digits within range; enum names;
 * no nulls. Anything else, valid or not, gives undefined and goes to the full decoder, which
 * then also produces the error message, so the result for any body is the same as the full
 * decoder's.
 */
export function scanRateLimitRequest(body: string): RateLimitRequest | undefined {
  const canonical = scanCanonical(body);
  if (canonical) return canonical;
  try {
    const scanner = new Scanner(body);
    const request = scanner.request();
    scanner.skipSpace();
    return scanner.at === body.length ? request : undefined;
  } catch (error) {
    if (error === NOT_COMMON) return undefined;
    throw error;
  }
}

/**
 * The body JSON.stringify gives a request of entries with both fields, in proto field order:
 * `{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"v"},...]},...]}`. Its fixed
 * parts are matched in place, so it is read without the general scanner's per-field work; any
 * other text, valid or not, gives undefined.
 */
function scanCanonical(text: string): RateLimitRequest | undefined {
  if (!text.startsWith('{"domain":"')) return undefined;
  let at = 11;
  let end = plainStringEnd(text, at);
  if (end < 0 || !text.startsWith('","descriptors":[', end)) return undefined;
  const domain = text.slice(at, end);
  at = end + 17;
  const descriptors: RequestDescriptor[] = [];
  for (;;) {
    if (!text.startsWith('{"entries":[', at)) return undefined;
    at += 12;
    const entries: Entry[] = [];
    for (;;) {
      if (!text.startsWith('{"key":"', at)) return undefined;
      at += 8;
      end = plainStringEnd(text, at);
      if (end < 0 || !text.startsWith('","value":"', end)) return undefined;
      const key = text.slice(at, end);
      at = end + 11;
      end = plainStringEnd(text, at);
      if (end < 0 || text.charCodeAt(end + 1) !== CLOSE_BRACE) return undefined;
      entries.push({ key, value: text.slice(at, end) });
      at = end + 2;
      const next = text.charCodeAt(at++);
      if (next === CLOSE_BRACKET) break;
      if (next !== COMMA) return undefined;
    }
    if (text.charCodeAt(at++) !== CLOSE_BRACE) return undefined;
    descriptors.push({ entries });
    const next = text.charCodeAt(at++);
    if (next === CLOSE_BRACKET) break;
    if (next !== COMMA) return undefined;
  }
  if (text.charCodeAt(at) !== CLOSE_BRACE || at + 1 !== text.length) return undefined;
  return { domain, descriptors, hitsAddend: 0 };
}

/** Where the string starting at `at` ends (its closing quote), or -1 if it has escapes or control characters. */
function plainStringEnd(text: string, at: number): number {
  for (let i = at; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) return i;
    if (code === BACKSLASH || code < 0x20) return -1;
  }
  return -1;
}

class Scanner {
  at = 0;

  constructor(private readonly text: string) {}

  request(): RateLimitRequest {
    let domain = '';
    let descriptors: RequestDescriptor[] = [];
    let hitsAddend = 0;
    let seen = 0;
    this.expect(OPEN_BRACE);
    if (!this.endOf(CLOSE_BRACE)) {
      do {
        const field = this.fieldName(REQUEST_FIELDS.names);
        seen = once(seen, REQUEST_FIELDS.bits[field] as number);
        if (field === 0) domain = this.string();
        else if (field === 1) descriptors = this.descriptors();
        else hitsAddend = this.uint(UINT32_MAX);
      } while (this.nextMember(CLOSE_BRACE));
    }
    return { domain, descriptors, hitsAddend };
  }

  private descriptors(): RequestDescriptor[] {
    const list: RequestDescriptor[] = [];
    this.expect(OPEN_BRACKET);
    if (this.endOf(CLOSE_BRACKET)) return list;
    do list.push(this.descriptor());
    while (this.nextMember(CLOSE_BRACKET));
    return list;
  }

  private descriptor(): RequestDescriptor {
    let entries: Entry[] = [];
    let limit: RequestDescriptor['limit'];
    let hitsAddend: number | undefined;
    let seen = 0;
    this.expect(OPEN_BRACE);
    if (!this.endOf(CLOSE_BRACE)) {
      do {
        const field = this.fieldName(DESCRIPTOR_FIELDS.names);
        seen = once(seen, DESCRIPTOR_FIELDS.bits[field] as number);
        if (field === 0) entries = this.entries();
        else if (field === 1) limit = this.override();
        else hitsAddend = this.uint(Number.MAX_SAFE_INTEGER);
      } while (this.nextMember(CLOSE_BRACE));
    }
    // The same fields, in the same order, as the full decoder sets them.
    const descriptor: {
      entries: readonly Entry[];
      limit?: RequestDescriptor['limit'];
      hitsAddend?: RequestDescriptor['hitsAddend'];
    } = { entries };
    if (limit !== undefined) descriptor.limit = limit;
    if (hitsAddend !== undefined) descriptor.hitsAddend = { value: hitsAddend };
    return descriptor;
  }

  private entries(): Entry[] {
    const list: Entry[] = [];
    this.expect(OPEN_BRACKET);
    if (this.endOf(CLOSE_BRACKET)) return list;
    do list.push(this.entry());
    while (this.nextMember(CLOSE_BRACKET));
    return list;
  }

  private entry(): Entry {
    let key = '';
    let value = '';
    let seen = 0;
    this.expect(OPEN_BRACE);
    if (!this.endOf(CLOSE_BRACE)) {
      do {
        const field = this.fieldName(ENTRY_FIELDS.names);
        seen = once(seen, ENTRY_FIELDS.bits[field] as number);
        if (field === 0) key = this.string();
        else value = this.string();
      } while (this.nextMember(CLOSE_BRACE));
    }
    return { key, value };
  }

  private override(): NonNullable<RequestDescriptor['limit']> {
    let requestsPerUnit = 0;
    let unit: string | number = 'UNKNOWN';
    let seen = 0;
    this.expect(OPEN_BRACE);
    if (!this.endOf(CLOSE_BRACE)) {
      do {
        const field = this.fieldName(OVERRIDE_FIELDS.names);
        seen = once(seen, OVERRIDE_FIELDS.bits[field] as number);
        if (field === 0) unit = this.unit();
        else requestsPerUnit = this.uint(UINT32_MAX);
      } while (this.nextMember(CLOSE_BRACE));
    }
    return { requestsPerUnit, unit };
  }

  private unit(): string | number {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) !== QUOTE) {
      const number = this.uint(Number.MAX_SAFE_INTEGER);
      return OVERRIDE_UNIT_NAMES[number] ?? number;
    }
    const name = this.string();
    if (!OVERRIDE_UNIT_NAMES.includes(name)) throw NOT_COMMON;
    return name;
  }

  /**
   * A field name and its colon, as its index in `names`; compared in place, so no string is
   * made for it.
   */
  private fieldName(names: readonly string[]): number {
    this.expect(QUOTE);
    const text = this.text;
    for (let i = 0; i < names.length; i++) {
      const name = names[i] as string;
      const end = this.at + name.length;
      if (text.charCodeAt(end) === QUOTE && text.startsWith(name, this.at)) {
        this.at = end + 1;
        this.expect(COLON);
        return i;
      }
    }
    throw NOT_COMMON;
  }

  /** A string without escapes or control characters (JSON.parse rejects the latter). */
  private string(): string {
    this.expect(QUOTE);
    const text = this.text;
    const start = this.at;
    for (let i = start; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code === QUOTE) {
        this.at = i + 1;
        return text.slice(start, i);
      }
      if (code === BACKSLASH || code < 0x20) throw NOT_COMMON;
    }
    throw NOT_COMMON;
  }

  /** Plain digits, no leading zero, at most `max`. */
  private uint(max: number): number {
    this.skipSpace();
    const text = this.text;
    const start = this.at;
    let value = 0;
    let i = start;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code < DIGIT_0 || code > DIGIT_9) break;
      value = value * 10 + (code - DIGIT_0);
    }
    const digits = i - start;
    if (digits === 0 || digits > MAX_DIGITS || (digits > 1 && text.charCodeAt(start) === DIGIT_0)) {
      throw NOT_COMMON;
    }
    // A fraction or exponent right after the digits is valid JSON, but not the common shape.
    const next = text.charCodeAt(i);
    if (next === 0x2e || next === 0x65 || next === 0x45 || value > max) throw NOT_COMMON;
    this.at = i;
    return value;
  }

  /** After a member: true on a comma, false on the closing character. */
  private nextMember(close: number): boolean {
    this.skipSpace();
    const code = this.text.charCodeAt(this.at++);
    if (code === COMMA) return true;
    if (code === close) return false;
    throw NOT_COMMON;
  }

  /** True (and consumed) when the next character closes an empty object or list. */
  private endOf(close: number): boolean {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) !== close) return false;
    this.at++;
    return true;
  }

  private expect(code: number): void {
    this.skipSpace();
    if (this.text.charCodeAt(this.at) !== code) throw NOT_COMMON;
    this.at++;
  }

  /** JSON whitespace: space, tab, line feed, carriage return. */
  skipSpace(): void {
    const text = this.text;
    let i = this.at;
    for (; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
    }
    this.at = i;
  }
}

/** A field seen twice (under one name or both) is left to the full decoder. */
function once(seen: number, bit: number): number {
  if ((seen & bit) !== 0) throw NOT_COMMON;
  return seen | bit;
}
