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
type FieldReader<T> = (value: unknown, path: string) => T;

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
  const fields = readMessage(parsed, '', {
    domain: 'domain',
    descriptors: 'descriptors',
    hitsAddend: 'hits_addend',
  });
  return {
    domain: fields.domain === undefined ? '' : readString(fields.domain, 'domain'),
    descriptors: readList(fields.descriptors, 'descriptors', readDescriptor),
    hitsAddend: fields.hitsAddend === undefined ? 0 : readUint(fields.hitsAddend, 'hitsAddend', UINT32_MAX),
  };
}

function readDescriptor(value: unknown, path: string): RequestDescriptor {
  const fields = readMessage(value, path, { entries: 'entries', limit: 'limit', hitsAddend: 'hits_addend' });
  const descriptor: {
    entries: readonly Entry[];
    limit?: RequestDescriptor['limit'];
    hitsAddend?: RequestDescriptor['hitsAddend'];
  } = { entries: readList(fields.entries, `${path}.entries`, readEntry) };
  if (fields.limit !== undefined) descriptor.limit = readOverride(fields.limit, `${path}.limit`);
  if (fields.hitsAddend !== undefined) {
    descriptor.hitsAddend = {
      value: readUint(fields.hitsAddend, `${path}.hitsAddend`, Number.MAX_SAFE_INTEGER),
    };
  }
  return descriptor;
}

function readEntry(value: unknown, path: string): Entry {
  const fields = readMessage(value, path, { key: 'key', value: 'value' });
  return {
    key: fields.key === undefined ? '' : readString(fields.key, `${path}.key`),
    value: fields.value === undefined ? '' : readString(fields.value, `${path}.value`),
  };
}

function readOverride(value: unknown, path: string): NonNullable<RequestDescriptor['limit']> {
  const fields = readMessage(value, path, { requestsPerUnit: 'requests_per_unit', unit: 'unit' });
  return {
    requestsPerUnit:
      fields.requestsPerUnit === undefined
        ? 0
        : readUint(fields.requestsPerUnit, `${path}.requestsPerUnit`, UINT32_MAX),
    unit: fields.unit === undefined ? 'UNKNOWN' : readUnit(fields.unit, `${path}.unit`),
  };
}

/**
 * Reads a JSON object whose fields are given as `jsonName: protoName`; returns the values by
 * JSON name, with null treated as absent.
 */
function readMessage<K extends string>(
  value: unknown,
  path: string,
  names: Record<K, string>,
): Partial<Record<K, unknown>> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new JsonRequestError(`${path || 'body'} must be a JSON object`);
  }
  const out: Partial<Record<K, unknown>> = {};
  const seen = new Set<K>();
  for (const [field, fieldValue] of Object.entries(value as JsonObject)) {
    const name = (Object.keys(names) as K[]).find((json) => json === field || names[json] === field);
    if (name === undefined) throw new JsonRequestError(`unknown field "${field}" in ${path || 'body'}`);
    if (seen.has(name)) throw new JsonRequestError(`duplicate field "${field}" in ${path || 'body'}`);
    seen.add(name);
    if (fieldValue !== null) out[name] = fieldValue;
  }
  return out;
}

function readList<T>(value: unknown, path: string, readItem: FieldReader<T>): T[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new JsonRequestError(`${path} must be a JSON array`);
  return value.map((item, index) => readItem(item, `${path}[${index}]`));
}

function readString(value: unknown, path: string): string {
  if (typeof value !== 'string') throw new JsonRequestError(`${path} must be a string`);
  return value;
}

function readUint(value: unknown, path: string, max: number): number {
  const number = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  if (typeof number !== 'number' || !Number.isInteger(number) || number < 0 || number > max) {
    throw new JsonRequestError(`${path} must be an unsigned integer up to ${max}`);
  }
  return number;
}

function readUnit(value: unknown, path: string): string | number {
  if (typeof value === 'string' && OVERRIDE_UNIT_NAMES.includes(value)) return value;
  if (typeof value === 'number' && Number.isInteger(value)) return OVERRIDE_UNIT_NAMES[value] ?? value;
  throw new JsonRequestError(`${path} must be a RateLimitUnit name or number`);
}

/** Encodes the response as proto3 JSON: enum names, `"42s"` durations, default values omitted. */
export function encodeRateLimitResponse(response: RateLimitResponse): string {
  const out: JsonObject = { overallCode: response.overallCode };
  if (response.statuses.length > 0) out.statuses = response.statuses.map(encodeStatus);
  if (response.responseHeadersToAdd.length > 0) {
    out.responseHeadersToAdd = response.responseHeadersToAdd.map(({ key, value }) => {
      const header: JsonObject = {};
      if (key !== '') header.key = key;
      if (value !== '') header.value = value;
      return header;
    });
  }
  if (response.dynamicMetadata) out.dynamicMetadata = response.dynamicMetadata;
  return JSON.stringify(out);
}

function encodeStatus(status: DescriptorStatus): JsonObject {
  const out: JsonObject = { code: status.code };
  const limit = status.currentLimit;
  if (limit) {
    const currentLimit: JsonObject = {};
    if (limit.name !== '') currentLimit.name = limit.name;
    if (limit.requestsPerUnit !== 0) currentLimit.requestsPerUnit = limit.requestsPerUnit;
    currentLimit.unit = limit.unit;
    out.currentLimit = currentLimit;
  }
  if (status.limitRemaining !== 0) out.limitRemaining = status.limitRemaining;
  if (status.durationUntilReset) out.durationUntilReset = `${status.durationUntilReset.seconds}s`;
  return out;
}
