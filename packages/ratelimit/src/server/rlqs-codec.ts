import { type Strategy, type StrategyUnit, strategyKey } from '../quota/strategy.js';
import type { BucketAction, BucketPairs, BucketUsage, UsageReport } from '../service/quota-messages.js';

/**
 * The protobuf wire form of envoy.service.rate_limit_quota.v3 (proto/envoy/service/
 * rate_limit_quota/v3/rlqs.proto), read and written by hand: the report decoder has to tell the
 * two forms of field 2 apart entry by entry, which a generated decoder cannot, and checks what
 * the proto's validation rules require, so a bad report gets a precise INVALID_ARGUMENT.
 *
 * RateLimitQuotaUsageReports: domain = 1 (string); bucket_quota_usages = 2, in either form:
 * - repeated BucketQuotaUsage: bucket_id = 1 (BucketId), time_elapsed = 2 (Duration),
 *   num_requests_allowed = 3, num_requests_denied = 4 (uint64);
 * - map<uint64, BucketQuotaUsage>: each entry a message of key = 1 (varint) and value = 2 (the
 *   BucketQuotaUsage).
 * An entry whose field 1 is a varint is a map entry, one whose field 1 is a message is a usage;
 * without field 1 (a map key of 0, or a usage missing its bucket), an entry holding only a field 2
 * whose own field 1 is a message is a map entry, anything else a usage.
 * BucketId: bucket = 1, map<string, string> (entries: key = 1, value = 2).
 * Duration: seconds = 1 (int64), nanos = 2 (int32).
 */

/** A decoded report, or why it is malformed (sent back as INVALID_ARGUMENT). */
export type DecodedReport = UsageReport | { readonly problem: string };

const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;

class Malformed extends Error {}

interface Field {
  readonly number: number;
  readonly wireType: number;
  /** varint value (wire type 0) */
  readonly value: number;
  /** bytes (wire type 2): start and end in the buffer */
  readonly start: number;
  readonly end: number;
}

/** Reads the fields of the message in bytes[start, end). */
function fields(bytes: Uint8Array, start: number, end: number): Field[] {
  const out: Field[] = [];
  let at = start;
  const varint = (): number => {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (at >= end) throw new Malformed('truncated varint');
      const byte = bytes[at++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new Malformed('varint longer than 10 bytes');
  };
  while (at < end) {
    const tag = varint();
    const number = Math.floor(tag / 8);
    const wireType = tag % 8;
    if (number === 0) throw new Malformed('field number 0');
    if (wireType === VARINT) out.push({ number, wireType, value: varint(), start: 0, end: 0 });
    else if (wireType === BYTES) {
      const length = varint();
      if (at + length > end) throw new Malformed('truncated length-delimited field');
      out.push({ number, wireType, value: 0, start: at, end: at + length });
      at += length;
    } else if (wireType === FIXED64 || wireType === FIXED32) {
      at += wireType === FIXED64 ? 8 : 4;
      if (at > end) throw new Malformed('truncated fixed-width field');
    } else {
      throw new Malformed(`unsupported wire type ${wireType}`);
    }
  }
  return out;
}

/** A varint holding a negative int64 or int32 (ten bytes, two's complement) as a negative number. */
function signed(value: number): number {
  return value >= 2 ** 63 ? value - 2 ** 64 : value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array, field: Field, what: string): string {
  try {
    return utf8.decode(bytes.subarray(field.start, field.end));
  } catch {
    throw new Malformed(`${what} is not valid UTF-8`);
  }
}

export function decodeReport(bytes: Uint8Array): DecodedReport {
  try {
    let domain = '';
    const usages: BucketUsage[] = [];
    for (const field of fields(bytes, 0, bytes.length)) {
      if (field.number === 1 && field.wireType === BYTES) domain = text(bytes, field, 'domain');
      else if (field.number === 2 && field.wireType === BYTES) {
        usages.push(decodeUsageEntry(bytes, field.start, field.end, usages.length));
      }
    }
    return { domain, usages };
  } catch (error) {
    if (error instanceof Malformed) return { problem: `malformed usage report: ${error.message}` };
    throw error;
  }
}

/** One entry of field 2, in either form. */
function decodeUsageEntry(bytes: Uint8Array, start: number, end: number, index: number): BucketUsage {
  const entry = fields(bytes, start, end);
  const first = entry.find((field) => field.number === 1);
  let isMapEntry = first?.wireType === VARINT;
  if (first === undefined) {
    const value = entry.find((field) => field.number === 2 && field.wireType === BYTES);
    const onlyValue = entry.every((field) => field.number === 2);
    isMapEntry =
      value !== undefined &&
      onlyValue &&
      fields(bytes, value.start, value.end).some((inner) => inner.number === 1 && inner.wireType === BYTES);
  }
  if (!isMapEntry) return decodeUsage(bytes, entry, index);
  const value = entry.findLast((field) => field.number === 2 && field.wireType === BYTES);
  if (!value) throw new Malformed(`bucket_quota_usages entry ${index} has a key but no usage`);
  return decodeUsage(bytes, fields(bytes, value.start, value.end), index);
}

function decodeUsage(bytes: Uint8Array, usage: readonly Field[], index: number): BucketUsage {
  let bucket: BucketPairs | undefined;
  let elapsedMs: number | undefined;
  let allowed = 0;
  let denied = 0;
  for (const field of usage) {
    if (field.number === 1 && field.wireType === BYTES) bucket = decodeBucketId(bytes, field);
    else if (field.number === 2 && field.wireType === BYTES) elapsedMs = decodeDurationMs(bytes, field);
    else if (field.number === 3 && field.wireType === VARINT) allowed = field.value;
    else if (field.number === 4 && field.wireType === VARINT) denied = field.value;
  }
  const where = `bucket_quota_usages[${index}]`;
  if (!bucket || bucket.length === 0)
    throw new Malformed(`${where}.bucket_id is empty: a bucket needs at least one key`);
  if (elapsedMs === undefined) throw new Malformed(`${where}.time_elapsed is missing`);
  if (!(elapsedMs > 0)) throw new Malformed(`${where}.time_elapsed must be more than 0, got ${elapsedMs} ms`);
  return { bucket, elapsedMs, allowed, denied };
}

function decodeBucketId(bytes: Uint8Array, field: Field): BucketPairs {
  const pairs = new Map<string, string>();
  for (const entry of fields(bytes, field.start, field.end)) {
    if (entry.number !== 1 || entry.wireType !== BYTES) continue;
    let key = '';
    let value = '';
    for (const part of fields(bytes, entry.start, entry.end)) {
      if (part.wireType !== BYTES) continue;
      if (part.number === 1) key = text(bytes, part, 'a bucket key');
      else if (part.number === 2) value = text(bytes, part, 'a bucket value');
    }
    // A map keeps the last value of a repeated key, as protobuf decoders do.
    pairs.set(key, value);
  }
  return [...pairs];
}

function decodeDurationMs(bytes: Uint8Array, field: Field): number {
  let seconds = 0;
  let nanos = 0;
  for (const part of fields(bytes, field.start, field.end)) {
    if (part.wireType !== VARINT) continue;
    if (part.number === 1) seconds = signed(part.value);
    else if (part.number === 2) nanos = signed(part.value);
  }
  return seconds * 1000 + nanos / 1e6;
}

// ---- encoding ----

/** envoy.type.v3.RateLimitUnit numbers. */
const UNIT_NUMBERS: Readonly<Record<StrategyUnit, number>> = {
  SECOND: 1,
  MINUTE: 2,
  HOUR: 3,
  DAY: 4,
  MONTH: 5,
  YEAR: 6,
};

/** A message being written: its parts, concatenated once the message is done. */
class Writer {
  private readonly parts: Uint8Array[] = [];
  private size = 0;

  varint(number: number, value: number): this {
    this.push(varintBytes(number * 8 + VARINT));
    this.push(varintBytes(value));
    return this;
  }

  bytes(number: number, value: Uint8Array): this {
    this.push(varintBytes(number * 8 + BYTES));
    this.push(varintBytes(value.length));
    this.push(value);
    return this;
  }

  string(number: number, value: string): this {
    return this.bytes(number, Buffer.from(value, 'utf8'));
  }

  message(number: number, write: (writer: Writer) => void): this {
    const inner = new Writer();
    write(inner);
    return this.bytes(number, inner.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts, this.size);
  }

  private push(part: Uint8Array): void {
    this.parts.push(part);
    this.size += part.length;
  }
}

function varintBytes(value: number): Uint8Array {
  const out: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    out.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  out.push(rest);
  return Uint8Array.from(out);
}

/**
 * A RateLimitQuotaResponse of `actions`, each with its bucket_id. A stream answers the same
 * buckets with the same few strategies report after report, so each part is encoded once: a
 * bucket's BucketId per pairs array (the subscription keeps one), an assignment per strategy and
 * time to live (a bounded cache); a response only frames them.
 */
export function encodeResponse(actions: readonly BucketAction[]): Buffer {
  const parts: Uint8Array[] = [];
  let size = 0;
  for (const action of actions) {
    const bucketId = encodedBucketId(action.bucket);
    const body = action.kind === 'abandon' ? ABANDON : encodedAssignment(action.strategy, action.ttlMs);
    const actionSize = 1 + varintSize(bucketId.length) + bucketId.length + body.length;
    const head = Buffer.allocUnsafe(1 + varintSize(actionSize) + 1 + varintSize(bucketId.length));
    let at = writeVarintAt(head, 0, TAG_ACTION);
    at = writeVarintAt(head, at, actionSize);
    at = writeVarintAt(head, at, TAG_BUCKET_ID);
    writeVarintAt(head, at, bucketId.length);
    parts.push(head, bucketId, body);
    size += head.length + bucketId.length + body.length;
  }
  return Buffer.concat(parts, size);
}

const TAG_ACTION = (1 << 3) | BYTES; // RateLimitQuotaResponse.bucket_action = 1
const TAG_BUCKET_ID = (1 << 3) | BYTES; // BucketAction.bucket_id = 1
/** BucketAction.abandon_action = 3, an empty message. */
const ABANDON = Uint8Array.of((3 << 3) | BYTES, 0);
const bucketIds = new WeakMap<BucketPairs, Buffer>();
const assignments = new Map<string, Buffer>();
/** Distinct strategy and TTL pairs kept encoded; past it the cache starts afresh. */
const MAX_ASSIGNMENTS = 10_000;

function encodedBucketId(pairs: BucketPairs): Buffer {
  let bytes = bucketIds.get(pairs);
  if (!bytes) {
    const writer = new Writer();
    for (const [key, value] of pairs) writer.message(1, (entry) => entry.string(1, key).string(2, value));
    bytes = writer.finish();
    bucketIds.set(pairs, bytes);
  }
  return bytes;
}

/** BucketAction.quota_assignment_action = 2, with its tag and length. */
function encodedAssignment(strategy: Strategy, ttlMs: number): Buffer {
  const key = `${strategyKey(strategy)}@${ttlMs}`;
  let bytes = assignments.get(key);
  if (!bytes) {
    bytes = new Writer()
      .message(2, (assignment) => {
        assignment.message(2, (ttl) => writeDuration(ttl, ttlMs));
        assignment.message(3, (written) => writeStrategy(written, strategy));
      })
      .finish();
    if (assignments.size >= MAX_ASSIGNMENTS) assignments.clear();
    assignments.set(key, bytes);
  }
  return bytes;
}

function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

function writeVarintAt(out: Buffer, start: number, value: number): number {
  let at = start;
  let rest = value;
  while (rest >= 0x80) {
    out[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}

function writeDuration(writer: Writer, ms: number): void {
  const seconds = Math.floor(ms / 1000);
  const nanos = Math.round((ms - seconds * 1000) * 1e6);
  if (seconds !== 0) writer.varint(1, seconds);
  if (nanos !== 0) writer.varint(2, nanos);
}

function writeStrategy(writer: Writer, strategy: Strategy): void {
  switch (strategy.kind) {
    case 'blanket':
      // A oneof member is written even when it holds its default (ALLOW_ALL is 0).
      writer.varint(1, strategy.rule === 'ALLOW_ALL' ? 0 : 1);
      return;
    case 'requests_per_time_unit':
      writer.message(2, (rate) => rate.varint(1, strategy.requests).varint(2, UNIT_NUMBERS[strategy.unit]));
      return;
    case 'token_bucket':
      writer.message(3, (bucket) => {
        bucket.varint(1, strategy.maxTokens);
        bucket.message(2, (fill) => fill.varint(1, strategy.tokensPerFill));
        bucket.message(3, (interval) => writeDuration(interval, strategy.fillIntervalMs));
      });
      return;
  }
}
