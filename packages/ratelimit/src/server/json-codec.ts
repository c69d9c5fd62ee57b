import type { Entry } from '../config/match.js';
import { OVERRIDE_UNIT_NAMES, UNITS } from '../limiter/units.js';
import type {
  DescriptorStatus,
  RateLimitRequest,
  RateLimitResponse,
  RequestDescriptor,
} from '../service/messages.js';
import { UINT32_MAX } from '../service/messages.js';
import { scanRateLimitRequest } from './json-request-scanner.js';

/** The body is not a valid proto3-JSON RateLimitRequest; /json answers 400 `Bad Request`. */
export class JsonRequestError extends Error {
  readonly code = 'RATELIMIT_BAD_JSON_REQUEST';
}

type JsonObject = Record<string, unknown>;

/**
 * The path of a value in error messages, from the descriptor index `d` and entry index `e`
 * (-1 when not inside one) and a suffix. Built only when an error is thrown, so the happy path
 * builds no strings and no closures.
 */
function pathOf(d: number, e: number, suffix: string): string {
  if (d < 0) return suffix;
  if (e < 0) return `descriptors[${d}]${suffix}`;
  return `descriptors[${d}].entries[${e}]${suffix}`;
}

/**
 * Decodes a proto3-JSON RateLimitRequest like Go's protojson.Unmarshal: JSON names and proto
 * names are both accepted (not both at once), unknown fields are rejected, null means unset,
 * integers may be strings, enums may be names or numbers. Bodies of the common shape are read
 * by the scanner in one pass; every other body by parseRateLimitRequest, with the same result.
 */
export function decodeRateLimitRequest(body: string): RateLimitRequest {
  return scanRateLimitRequest(body) ?? parseRateLimitRequest(body);
}

/**
 * The full decoder: JSON.parse, then the checks of every message. Each message is read in two steps, so errors come in a fixed order: first its field names
 * (unknown or given twice), then its values. A bit per field tracks the names seen, null ones
 * included, so the happy path allocates nothing but the decoded message.
 */
export function parseRateLimitRequest(body: string): RateLimitRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new JsonRequestError(`invalid JSON: ${(error as Error).message}`);
  }
  const object = asObject(parsed, -1, -1, '');
  let domain: unknown = null;
  let descriptors: unknown = null;
  let hitsAddend: unknown = null;
  let seen = 0;
  for (const field in object) {
    const value = object[field];
    switch (field) {
      case 'domain':
        seen = markSeen(seen, 1, field, -1, -1, '');
        domain = value;
        break;
      case 'descriptors':
        seen = markSeen(seen, 2, field, -1, -1, '');
        descriptors = value;
        break;
      case 'hitsAddend':
      case 'hits_addend':
        seen = markSeen(seen, 4, field, -1, -1, '');
        hitsAddend = value;
        break;
      default:
        throw unknownField(field, -1, -1, '');
    }
  }
  const list = readList(descriptors, -1, 'descriptors');
  const decoded = new Array<RequestDescriptor>(list.length);
  for (let d = 0; d < list.length; d++) decoded[d] = readDescriptor(list[d], d);
  return {
    domain: domain === null ? '' : readString(domain, -1, -1, 'domain'),
    descriptors: decoded,
    hitsAddend: hitsAddend === null ? 0 : readUint(hitsAddend, -1, 'hitsAddend', UINT32_MAX),
  };
}

function readDescriptor(value: unknown, d: number): RequestDescriptor {
  const object = asObject(value, d, -1, '');
  let entries: unknown = null;
  let limit: unknown = null;
  let hitsAddend: unknown = null;
  let seen = 0;
  for (const field in object) {
    const fieldValue = object[field];
    switch (field) {
      case 'entries':
        seen = markSeen(seen, 1, field, d, -1, '');
        entries = fieldValue;
        break;
      case 'limit':
        seen = markSeen(seen, 2, field, d, -1, '');
        limit = fieldValue;
        break;
      case 'hitsAddend':
      case 'hits_addend':
        seen = markSeen(seen, 4, field, d, -1, '');
        hitsAddend = fieldValue;
        break;
      default:
        throw unknownField(field, d, -1, '');
    }
  }
  const list = readList(entries, d, '.entries');
  const decoded = new Array<Entry>(list.length);
  for (let e = 0; e < list.length; e++) decoded[e] = readEntry(list[e], d, e);
  const descriptor: {
    entries: readonly Entry[];
    limit?: RequestDescriptor['limit'];
    hitsAddend?: RequestDescriptor['hitsAddend'];
  } = { entries: decoded };
  if (limit !== null) descriptor.limit = readOverride(limit, d);
  if (hitsAddend !== null) {
    descriptor.hitsAddend = { value: readUint(hitsAddend, d, '.hitsAddend', Number.MAX_SAFE_INTEGER) };
  }
  return descriptor;
}

function readEntry(value: unknown, d: number, e: number): Entry {
  const object = asObject(value, d, e, '');
  let key: unknown = null;
  let entryValue: unknown = null;
  let seen = 0;
  for (const field in object) {
    const fieldValue = object[field];
    switch (field) {
      case 'key':
        seen = markSeen(seen, 1, field, d, e, '');
        key = fieldValue;
        break;
      case 'value':
        seen = markSeen(seen, 2, field, d, e, '');
        entryValue = fieldValue;
        break;
      default:
        throw unknownField(field, d, e, '');
    }
  }
  return {
    key: key === null ? '' : readString(key, d, e, '.key'),
    value: entryValue === null ? '' : readString(entryValue, d, e, '.value'),
  };
}

function readOverride(value: unknown, d: number): NonNullable<RequestDescriptor['limit']> {
  const object = asObject(value, d, -1, '.limit');
  let requestsPerUnit: unknown = null;
  let unit: unknown = null;
  let seen = 0;
  for (const field in object) {
    const fieldValue = object[field];
    switch (field) {
      case 'requestsPerUnit':
      case 'requests_per_unit':
        seen = markSeen(seen, 1, field, d, -1, '.limit');
        requestsPerUnit = fieldValue;
        break;
      case 'unit':
        seen = markSeen(seen, 2, field, d, -1, '.limit');
        unit = fieldValue;
        break;
      default:
        throw unknownField(field, d, -1, '.limit');
    }
  }
  return {
    requestsPerUnit:
      requestsPerUnit === null ? 0 : readUint(requestsPerUnit, d, '.limit.requestsPerUnit', UINT32_MAX),
    unit: unit === null ? 'UNKNOWN' : readUnit(unit, d, '.limit.unit'),
  };
}

function asObject(value: unknown, d: number, e: number, suffix: string): JsonObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JsonRequestError(`${pathOf(d, e, suffix) || 'body'} must be a JSON object`);
  }
  return value as JsonObject;
}

/** Adds a field's bit to `seen`; a field given under both its names is an error. */
function markSeen(seen: number, bit: number, field: string, d: number, e: number, suffix: string): number {
  if ((seen & bit) !== 0) {
    throw new JsonRequestError(`duplicate field "${field}" in ${pathOf(d, e, suffix) || 'body'}`);
  }
  return seen | bit;
}

function unknownField(field: string, d: number, e: number, suffix: string): JsonRequestError {
  return new JsonRequestError(`unknown field "${field}" in ${pathOf(d, e, suffix) || 'body'}`);
}

function readList(value: unknown, d: number, suffix: string): readonly unknown[] {
  if (value === null) return [];
  if (!Array.isArray(value)) throw new JsonRequestError(`${pathOf(d, -1, suffix)} must be a JSON array`);
  return value;
}

function readString(value: unknown, d: number, e: number, suffix: string): string {
  if (typeof value !== 'string') throw new JsonRequestError(`${pathOf(d, e, suffix)} must be a string`);
  return value;
}

function readUint(value: unknown, d: number, suffix: string, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > max) {
    throw new JsonRequestError(`${pathOf(d, -1, suffix)} must be an unsigned integer up to ${max}`);
  }
  return number;
}

function readUnit(value: unknown, d: number, suffix: string): string | number {
  if (typeof value === 'string' && OVERRIDE_UNIT_NAMES.includes(value)) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return OVERRIDE_UNIT_NAMES[value] ?? value;
  throw new JsonRequestError(`${pathOf(d, -1, suffix)} must be a RateLimitUnit name or number`);
}

/** The /json answer: its text, and that text's length in UTF-8 bytes. */
export interface EncodedJson {
  readonly text: string;
  readonly bytes: number;
}

/** Any character past U+007F: such text is longer in UTF-8 than in UTF-16 code units. */
const NON_ASCII = /[\u0080-\uffff]/;

/**
 * A JSON text being written, with the UTF-8 bytes its free-form strings add over their length:
 * everything else written is ASCII, so the byte length needs no second pass over the text.
 */
class JsonText {
  text = '';
  extraBytes = 0;

  /** Appends JSON produced by JSON.stringify from free-form values (names, headers, metadata). */
  free(json: string): void {
    if (NON_ASCII.test(json)) this.extraBytes += Buffer.byteLength(json) - json.length;
    this.text += json;
  }
}

/**
 * Encodes the response as proto3 JSON: enum names, `"42s"` durations, default values omitted.
 * Written straight into a string; only free-form texts go through JSON.stringify.
 */
export function encodeRateLimitResponse(response: RateLimitResponse): EncodedJson {
  const out = new JsonText();
  out.text = `{"overallCode":"${response.overallCode}"`;
  const statuses = response.statuses;
  if (statuses.length > 0) {
    out.text += ',"statuses":[';
    for (let i = 0; i < statuses.length; i++) {
      if (i > 0) out.text += ',';
      encodeStatus(out, statuses[i] as DescriptorStatus);
    }
    out.text += ']';
  }
  const headers = response.responseHeadersToAdd;
  if (headers.length > 0) {
    out.text += ',"responseHeadersToAdd":[';
    for (let i = 0; i < headers.length; i++) {
      const { key, value } = headers[i] as { key: string; value: string };
      out.text += i > 0 ? ',{' : '{';
      if (key !== '') {
        out.text += '"key":';
        out.free(JSON.stringify(key));
      }
      if (value !== '') {
        out.text += key !== '' ? ',"value":' : '"value":';
        out.free(JSON.stringify(value));
      }
      out.text += '}';
    }
    out.text += ']';
  }
  if (response.dynamicMetadata) {
    out.text += ',"dynamicMetadata":';
    out.free(JSON.stringify(response.dynamicMetadata));
  }
  out.text += '}';
  return { text: out.text, bytes: out.text.length + out.extraBytes };
}

/** `"unit":"<UNIT>"}` for every unit a rule can have, written as is; any other text is escaped. */
const UNIT_ENDINGS: ReadonlyMap<string, string> = new Map(
  Object.keys(UNITS).map((unit) => [unit, `"unit":"${unit}"}`]),
);

function encodeStatus(out: JsonText, status: DescriptorStatus): void {
  out.text += `{"code":"${status.code}"`;
  const limit = status.currentLimit;
  if (limit) {
    out.text += ',"currentLimit":{';
    if (limit.name !== '') {
      out.text += '"name":';
      out.free(JSON.stringify(limit.name));
      out.text += ',';
    }
    if (limit.requestsPerUnit !== 0) out.text += `"requestsPerUnit":${limit.requestsPerUnit},`;
    const unitEnding = UNIT_ENDINGS.get(limit.unit);
    if (unitEnding !== undefined) {
      out.text += unitEnding;
    } else {
      out.text += '"unit":';
      out.free(JSON.stringify(limit.unit));
      out.text += '}';
    }
  }
  if (status.limitRemaining !== 0) out.text += `,"limitRemaining":${status.limitRemaining}`;
  if (status.durationUntilReset) out.text += `,"durationUntilReset":"${status.durationUntilReset.seconds}s"`;
  out.text += '}';
}
