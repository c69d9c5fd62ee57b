import type { DescriptorStatus, HeaderValue, RateLimitResponse } from '../protocol/messages.js';
import { unitNumber } from '../protocol/units.js';
import { varintSize, writeVarint } from './protobuf-wire.js';

/** RateLimitResponse.Code numbers (rls.proto). */
const CODE_NUMBERS: Readonly<Record<string, number>> = { UNKNOWN: 0, OK: 1, OVER_LIMIT: 2 };

// Tags: field number << 3 | wire type (0 varint, 2 length-delimited).
const TAG_VARINT_1 = 0x08;
const TAG_VARINT_2 = 0x10;
const TAG_VARINT_3 = 0x18;
const TAG_BYTES_1 = 0x0a;
const TAG_BYTES_2 = 0x12;
const TAG_BYTES_3 = 0x1a;
const TAG_BYTES_4 = 0x22;

/**
 * The protobuf encoding of a RateLimitResponse without dynamic metadata, written straight into
 * one buffer instead of through protobufjs' fromObject (a message object per status, limit and
 * duration) and its writer. The bytes are exactly what proto-loader's serializer writes for the
 * same object: fields in number order, and every field the object holds written even when it
 * is the default (an empty rule name, limitRemaining 0, nanos 0). Every number in a response
 * is a non-negative integer below 2^53.
 */
export function encodeRateLimitResponseProto(response: RateLimitResponse): Buffer {
  const statuses = response.statuses;
  const headers = response.responseHeadersToAdd;
  // First pass: the sizes of the nested messages (their length prefixes come first).
  const statusSizes = new Array<number>(statuses.length);
  let size = 1 + varintSize(CODE_NUMBERS[response.overallCode] as number);
  for (let i = 0; i < statuses.length; i++) {
    const statusSize = descriptorStatusSize(statuses[i] as DescriptorStatus);
    statusSizes[i] = statusSize;
    size += 1 + varintSize(statusSize) + statusSize;
  }
  for (const header of headers) {
    const headerSize = headerValueSize(header);
    size += 1 + varintSize(headerSize) + headerSize;
  }

  const out = Buffer.allocUnsafe(size);
  let at = writeVarintField(out, 0, TAG_VARINT_1, CODE_NUMBERS[response.overallCode] as number);
  for (let i = 0; i < statuses.length; i++) {
    out[at++] = TAG_BYTES_2;
    at = writeVarint(out, at, statusSizes[i] as number);
    at = writeDescriptorStatus(out, at, statuses[i] as DescriptorStatus);
  }
  for (const header of headers) {
    out[at++] = TAG_BYTES_3;
    at = writeVarint(out, at, headerValueSize(header));
    at = writeStringField(out, at, TAG_BYTES_1, header.key);
    at = writeStringField(out, at, TAG_BYTES_2, header.value);
  }
  return out;
}

function descriptorStatusSize(status: DescriptorStatus): number {
  let size = 1 + varintSize(CODE_NUMBERS[status.code] as number);
  const limit = status.currentLimit;
  if (limit) {
    const limitSize = rateLimitSize(limit.requestsPerUnit, limit.unit, limit.name);
    size += 1 + varintSize(limitSize) + limitSize;
  }
  size += 1 + varintSize(status.limitRemaining >>> 0);
  const reset = status.durationUntilReset;
  if (reset) {
    const resetSize = 2 + varintSize(reset.seconds) + varintSize(reset.nanos);
    size += 1 + varintSize(resetSize) + resetSize;
  }
  return size;
}

function writeDescriptorStatus(out: Buffer, start: number, status: DescriptorStatus): number {
  let at = writeVarintField(out, start, TAG_VARINT_1, CODE_NUMBERS[status.code] as number);
  const limit = status.currentLimit;
  if (limit) {
    out[at++] = TAG_BYTES_2;
    at = writeVarint(out, at, rateLimitSize(limit.requestsPerUnit, limit.unit, limit.name));
    at = writeVarintField(out, at, TAG_VARINT_1, limit.requestsPerUnit >>> 0);
    const unit = unitNumber(limit.unit);
    if (unit !== undefined) at = writeVarintField(out, at, TAG_VARINT_2, unit);
    at = writeStringField(out, at, TAG_BYTES_3, limit.name);
  }
  at = writeVarintField(out, at, TAG_VARINT_3, status.limitRemaining >>> 0);
  const reset = status.durationUntilReset;
  if (reset) {
    out[at++] = TAG_BYTES_4;
    at = writeVarint(out, at, 2 + varintSize(reset.seconds) + varintSize(reset.nanos));
    at = writeVarintField(out, at, TAG_VARINT_1, reset.seconds);
    at = writeVarintField(out, at, TAG_VARINT_2, reset.nanos);
  }
  return at;
}

function rateLimitSize(requestsPerUnit: number, unit: string, name: string): number {
  const number = unitNumber(unit);
  return (
    1 +
    varintSize(requestsPerUnit >>> 0) +
    (number === undefined ? 0 : 1 + varintSize(number)) +
    stringFieldSize(name)
  );
}

function headerValueSize(header: HeaderValue): number {
  return stringFieldSize(header.key) + stringFieldSize(header.value);
}

function stringFieldSize(text: string): number {
  const length = Buffer.byteLength(text);
  return 1 + varintSize(length) + length;
}

function writeStringField(out: Buffer, start: number, tag: number, text: string): number {
  out[start] = tag;
  const length = Buffer.byteLength(text);
  const at = writeVarint(out, start + 1, length);
  return at + out.write(text, at, length, 'utf8');
}

function writeVarintField(out: Buffer, start: number, tag: number, value: number): number {
  out[start] = tag;
  return writeVarint(out, start + 1, value);
}
