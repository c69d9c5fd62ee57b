import type { Entry } from '../config/match.js';
import type {
  DescriptorStatus,
  RateLimitRequest,
  RateLimitResponse,
  RequestDescriptor,
} from '../service/messages.js';

/** The body is not a valid proto3-JSON RateLimitRequest; /json answers 400 `Bad Request`. */
export class JsonRequestError extends Error {
  readonly code = 'RATELIMIT_BAD_JSON_REQUEST';
}

const UINT32_MAX = 4_294_967_295;
const OVERRIDE_UNIT_NAMES = ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR'];

type JsonObject = Record<string, unknown>;

/** A message's accepted field names: JSON name and proto name, both mapped to the JSON name. */
function fieldNames<K extends string>(names: Record<K, string>): ReadonlyMap<string, K> {
  const map = new Map<string, K>();
  for (const json of Object.keys(names) as K[]) {
    map.set(json, json);
    map.set(names[json], json);
  }
  return map;
}

const REQUEST_FIELDS = fieldNames({
  domain: 'domain',
  descriptors: 'descriptors',
  hitsAddend: 'hits_addend',
});
const DESCRIPTOR_FIELDS = fieldNames({ entries: 'entries', limit: 'limit', hitsAddend: 'hits_addend' });
const ENTRY_FIELDS = fieldNames({ key: 'key', value: 'value' });
const OVERRIDE_FIELDS = fieldNames({ requestsPerUnit: 'requests_per_unit', unit: 'unit' });

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
 * integers may be strings, enums may be names or numbers.
 */
export function decodeRateLimitRequest(body: string): RateLimitRequest {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch (error) {
    throw new JsonRequestError(`invalid JSON: ${(error as Error).message}`);
  }
  const fields = readMessage(parsed, REQUEST_FIELDS, -1, -1, '');
  const list = readList(fields.descriptors, -1, 'descriptors');
  const descriptors = new Array<RequestDescriptor>(list.length);
  for (let d = 0; d < list.length; d++) descriptors[d] = readDescriptor(list[d], d);
  return {
    domain: fields.domain === undefined ? '' : readString(fields.domain, -1, -1, 'domain'),
    descriptors,
    hitsAddend:
      fields.hitsAddend === undefined ? 0 : readUint(fields.hitsAddend, -1, 'hitsAddend', UINT32_MAX),
  };
}

function readDescriptor(value: unknown, d: number): RequestDescriptor {
  const fields = readMessage(value, DESCRIPTOR_FIELDS, d, -1, '');
  const list = readList(fields.entries, d, '.entries');
  const entries = new Array<Entry>(list.length);
  for (let e = 0; e < list.length; e++) entries[e] = readEntry(list[e], d, e);
  const descriptor: {
    entries: readonly Entry[];
    limit?: RequestDescriptor['limit'];
    hitsAddend?: RequestDescriptor['hitsAddend'];
  } = { entries };
  if (fields.limit !== undefined) descriptor.limit = readOverride(fields.limit, d);
  if (fields.hitsAddend !== undefined) {
    descriptor.hitsAddend = {
      value: readUint(fields.hitsAddend, d, '.hitsAddend', Number.MAX_SAFE_INTEGER),
    };
  }
  return descriptor;
}

function readEntry(value: unknown, d: number, e: number): Entry {
  const fields = readMessage(value, ENTRY_FIELDS, d, e, '');
  return {
    key: fields.key === undefined ? '' : readString(fields.key, d, e, '.key'),
    value: fields.value === undefined ? '' : readString(fields.value, d, e, '.value'),
  };
}

function readOverride(value: unknown, d: number): NonNullable<RequestDescriptor['limit']> {
  const fields = readMessage(value, OVERRIDE_FIELDS, d, -1, '.limit');
  return {
    requestsPerUnit:
      fields.requestsPerUnit === undefined
        ? 0
        : readUint(fields.requestsPerUnit, d, '.limit.requestsPerUnit', UINT32_MAX),
    unit: fields.unit === undefined ? 'UNKNOWN' : readUnit(fields.unit, d, '.limit.unit'),
  };
}

/** Reads a JSON object's fields by their JSON names, with null treated as absent. */
function readMessage<K extends string>(
  value: unknown,
  names: ReadonlyMap<string, K>,
  d: number,
  e: number,
  suffix: string,
): Partial<Record<K, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JsonRequestError(`${pathOf(d, e, suffix) || 'body'} must be a JSON object`);
  }
  const out: Partial<Record<K, unknown>> = {};
  // Fields seen so far, null ones included, so a JSON name and its proto name are never both used.
  let seen = '';
  for (const field in value) {
    const name = names.get(field);
    if (name === undefined)
      throw new JsonRequestError(`unknown field "${field}" in ${pathOf(d, e, suffix) || 'body'}`);
    if (seen.includes(`|${name}|`)) {
      throw new JsonRequestError(`duplicate field "${field}" in ${pathOf(d, e, suffix) || 'body'}`);
    }
    seen += `|${name}|`;
    const fieldValue = (value as JsonObject)[field];
    if (fieldValue !== null) out[name] = fieldValue;
  }
  return out;
}

function readList(value: unknown, d: number, suffix: string): readonly unknown[] {
  if (value === undefined) return [];
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

/**
 * Encodes the response as proto3 JSON: enum names, `"42s"` durations, default values omitted.
 * Written straight into a string; only free-form texts go through JSON.stringify.
 */
export function encodeRateLimitResponse(response: RateLimitResponse): string {
  let json = `{"overallCode":"${response.overallCode}"`;
  const statuses = response.statuses;
  if (statuses.length > 0) {
    json += ',"statuses":[';
    for (let i = 0; i < statuses.length; i++) {
      if (i > 0) json += ',';
      json += encodeStatus(statuses[i] as DescriptorStatus);
    }
    json += ']';
  }
  const headers = response.responseHeadersToAdd;
  if (headers.length > 0) {
    json += ',"responseHeadersToAdd":[';
    for (let i = 0; i < headers.length; i++) {
      const { key, value } = headers[i] as { key: string; value: string };
      const fields: string[] = [];
      if (key !== '') fields.push(`"key":${JSON.stringify(key)}`);
      if (value !== '') fields.push(`"value":${JSON.stringify(value)}`);
      json += `${i > 0 ? ',' : ''}{${fields.join(',')}}`;
    }
    json += ']';
  }
  if (response.dynamicMetadata) json += `,"dynamicMetadata":${JSON.stringify(response.dynamicMetadata)}`;
  return `${json}}`;
}

function encodeStatus(status: DescriptorStatus): string {
  let json = `{"code":"${status.code}"`;
  const limit = status.currentLimit;
  if (limit) {
    json += ',"currentLimit":{';
    if (limit.name !== '') json += `"name":${JSON.stringify(limit.name)},`;
    if (limit.requestsPerUnit !== 0) json += `"requestsPerUnit":${limit.requestsPerUnit},`;
    json += `"unit":${JSON.stringify(limit.unit)}}`;
  }
  if (status.limitRemaining !== 0) json += `,"limitRemaining":${status.limitRemaining}`;
  if (status.durationUntilReset) json += `,"durationUntilReset":"${status.durationUntilReset.seconds}s"`;
  return `${json}}`;
}
