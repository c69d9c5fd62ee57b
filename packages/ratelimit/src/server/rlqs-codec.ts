import { type Strategy, type StrategyUnit, strategyKey } from '../quota/strategy.js';
import type { BucketAction, BucketPairs, BucketUsage, UsageReport } from '../service/quota-messages.js';
import { varintSize, writeVarint } from './protobuf-wire.js';

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

// Tags (field number << 3 | wire type) the decoder looks for.
const TAG_1_BYTES = (1 << 3) | BYTES;
const TAG_2_BYTES = (2 << 3) | BYTES;
const TAG_1_VARINT = (1 << 3) | VARINT;
const TAG_2_VARINT = (2 << 3) | VARINT;
const TAG_3_VARINT = (3 << 3) | VARINT;
const TAG_4_VARINT = (4 << 3) | VARINT;

class Malformed extends Error {}

/**
 * Reads one message in place, field by field, without building a list of its fields: a report
 * of ten buckets is read in one pass over its bytes.
 */
class Cursor {
  at: number;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number,
  ) {
    this.at = start;
  }

  get done(): boolean {
    return this.at >= this.end;
  }

  varint(): number {
    let value = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.at >= this.end) throw new Malformed('truncated varint');
      const byte = this.bytes[this.at++] as number;
      value += (byte & 0x7f) * scale;
      if (byte < 0x80) return value;
      scale *= 128;
    }
    throw new Malformed('varint longer than 10 bytes');
  }

  /** The next field's tag (field number × 8 + wire type). */
  tag(): number {
    const tag = this.varint();
    if (tag < 8) throw new Malformed('field number 0');
    return tag;
  }

  /** Moves past a length-delimited value and returns where it starts (it ends at `at`). */
  delimited(): number {
    const length = this.varint();
    const start = this.at;
    if (start + length > this.end) throw new Malformed('truncated length-delimited field');
    this.at = start + length;
    return start;
  }

  /** Moves past the value of a field of `tag` the reader has no use for. */
  skip(tag: number): void {
    const wireType = tag % 8;
    if (wireType === VARINT) this.varint();
    else if (wireType === BYTES) this.delimited();
    else if (wireType === FIXED64 || wireType === FIXED32) {
      this.at += wireType === FIXED64 ? 8 : 4;
      if (this.at > this.end) throw new Malformed('truncated fixed-width field');
    } else {
      throw new Malformed(`unsupported wire type ${wireType}`);
    }
  }
}

/** A varint holding a negative int64 or int32 (ten bytes, two's complement) as a negative number. */
function signed(value: number): number {
  return value >= 2 ** 63 ? value - 2 ** 64 : value;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function text(bytes: Uint8Array, start: number, end: number, what: string): string {
  try {
    return utf8.decode(bytes.subarray(start, end));
  } catch {
    throw new Malformed(`${what} is not valid UTF-8`);
  }
}

export function decodeReport(bytes: Uint8Array): DecodedReport {
  const buffer = Buffer.isBuffer(bytes)
    ? bytes
    : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  try {
    let domain = '';
    const usages: BucketUsage[] = [];
    const report = new Cursor(buffer, 0, buffer.length);
    while (!report.done) {
      const tag = report.tag();
      if (tag === TAG_1_BYTES) {
        const start = report.delimited();
        domain = text(buffer, start, report.at, 'domain');
      } else if (tag === TAG_2_BYTES) {
        const start = report.delimited();
        usages.push(decodeUsageEntry(buffer, start, report.at, usages.length));
      } else {
        report.skip(tag);
      }
    }
    return { domain, usages };
  } catch (error) {
    if (error instanceof Malformed) return { problem: `malformed usage report: ${error.message}` };
    throw error;
  }
}

/** One entry of field 2, in either form. */
function decodeUsageEntry(bytes: Buffer, start: number, end: number, index: number): BucketUsage {
  let firstKeyWireType = -1;
  let onlyValues = true;
  let firstValue = -1;
  let firstValueEnd = -1;
  let lastValue = -1;
  let lastValueEnd = -1;
  const entry = new Cursor(bytes, start, end);
  while (!entry.done) {
    const tag = entry.tag();
    const number = Math.floor(tag / 8);
    if (number === 1 && firstKeyWireType < 0) firstKeyWireType = tag % 8;
    if (number !== 2) onlyValues = false;
    if (tag === TAG_2_BYTES) {
      lastValue = entry.delimited();
      lastValueEnd = entry.at;
      if (firstValue < 0) {
        firstValue = lastValue;
        firstValueEnd = lastValueEnd;
      }
    } else {
      entry.skip(tag);
    }
  }
  const isMapEntry =
    firstKeyWireType === VARINT ||
    (firstKeyWireType < 0 &&
      firstValue >= 0 &&
      onlyValues &&
      holdsMessageField1(bytes, firstValue, firstValueEnd));
  if (!isMapEntry) return decodeUsage(bytes, start, end, index);
  if (lastValue < 0) throw new Malformed(`bucket_quota_usages entry ${index} has a key but no usage`);
  return decodeUsage(bytes, lastValue, lastValueEnd, index);
}

/** Whether the message in bytes[start, end) has a field 1 that is length-delimited (a usage's bucket_id). */
function holdsMessageField1(bytes: Buffer, start: number, end: number): boolean {
  const message = new Cursor(bytes, start, end);
  while (!message.done) {
    const tag = message.tag();
    if (tag === TAG_1_BYTES) return true;
    message.skip(tag);
  }
  return false;
}

function decodeUsage(bytes: Buffer, start: number, end: number, index: number): BucketUsage {
  let bucket: BucketPairs | undefined;
  let elapsedMs: number | undefined;
  let allowed = 0;
  let denied = 0;
  const usage = new Cursor(bytes, start, end);
  while (!usage.done) {
    const tag = usage.tag();
    if (tag === TAG_1_BYTES) {
      const from = usage.delimited();
      bucket = bucketIdAt(bytes, from, usage.at, index);
    } else if (tag === TAG_2_BYTES) {
      const from = usage.delimited();
      elapsedMs = durationMsAt(bytes, from, usage.at);
    } else if (tag === TAG_3_VARINT) allowed = usage.varint();
    else if (tag === TAG_4_VARINT) denied = usage.varint();
    else usage.skip(tag);
  }
  const where = `bucket_quota_usages[${index}]`;
  if (!bucket || bucket.length === 0)
    throw new Malformed(`${where}.bucket_id is empty: a bucket needs at least one key`);
  if (elapsedMs === undefined) throw new Malformed(`${where}.time_elapsed is missing`);
  if (!(elapsedMs > 0)) throw new Malformed(`${where}.time_elapsed must be more than 0, got ${elapsedMs} ms`);
  return { bucket, elapsedMs, allowed, denied };
}

/**
 * BucketIds decoded before, by their bytes. A client sends the same bytes for a bucket report
 * after report, so a bucket is decoded once and every later report of it yields the same pairs
 * array, which the service keeps its subscription under. Past the bound the cache starts afresh.
 */
const bucketIds = new Map<string, BucketPairs>();
const MAX_CACHED_BUCKET_IDS = 20_000;

function bucketIdAt(bytes: Buffer, start: number, end: number, index: number): BucketPairs {
  const raw = bytes.toString('latin1', start, end);
  let pairs = bucketIds.get(raw);
  if (!pairs) {
    pairs = decodeBucketId(bytes, start, end, index);
    if (bucketIds.size >= MAX_CACHED_BUCKET_IDS) bucketIds.clear();
    bucketIds.set(raw, pairs);
  }
  return pairs;
}

/** A BucketId's pairs; an empty key or value is refused, as Envoy's own validation (min_len 1 on both) does. */
function decodeBucketId(bytes: Buffer, start: number, end: number, index: number): BucketPairs {
  const pairs = new Map<string, string>();
  const bucketId = new Cursor(bytes, start, end);
  while (!bucketId.done) {
    const tag = bucketId.tag();
    if (tag !== TAG_1_BYTES) {
      bucketId.skip(tag);
      continue;
    }
    const entryStart = bucketId.delimited();
    const entry = new Cursor(bytes, entryStart, bucketId.at);
    let key = '';
    let value = '';
    while (!entry.done) {
      const part = entry.tag();
      if (part === TAG_1_BYTES) {
        const from = entry.delimited();
        key = text(bytes, from, entry.at, 'a bucket key');
      } else if (part === TAG_2_BYTES) {
        const from = entry.delimited();
        value = text(bytes, from, entry.at, 'a bucket value');
      } else {
        entry.skip(part);
      }
    }
    if (key === '' || value === '') {
      throw new Malformed(
        `bucket_quota_usages[${index}].bucket_id has an empty ${key === '' ? 'key' : `value for key '${key}'`}: keys and values must not be empty`,
      );
    }
    // A map keeps the last value of a repeated key, as protobuf decoders do.
    pairs.set(key, value);
  }
  return Object.freeze([...pairs]);
}

function durationMsAt(bytes: Buffer, start: number, end: number): number {
  let seconds = 0;
  let nanos = 0;
  const duration = new Cursor(bytes, start, end);
  while (!duration.done) {
    const tag = duration.tag();
    if (tag === TAG_1_VARINT) seconds = signed(duration.varint());
    else if (tag === TAG_2_VARINT) nanos = signed(duration.varint());
    else duration.skip(tag);
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
  const out = new Uint8Array(varintSize(value));
  writeVarint(out, 0, value);
  return out;
}

/**
 * A RateLimitQuotaResponse of `actions`, each with its bucket_id. A stream answers the same
 * buckets with the same few strategies report after report, so each part is encoded once: a
 * bucket's BucketId per pairs array (the subscription keeps one), an assignment per strategy and
 * time to live; a response only frames them, in one buffer. The service sends a stream the same
 * actions array again while its answer has not changed, which is then not encoded again.
 */
export function encodeResponse(actions: readonly BucketAction[]): Buffer {
  const cached = responses.get(actions);
  if (cached) return cached;
  const bucketIdParts = new Array<Buffer>(actions.length);
  const bodies = new Array<Uint8Array>(actions.length);
  let size = 0;
  for (let i = 0; i < actions.length; i++) {
    const action = actions[i] as BucketAction;
    const bucketId = encodedBucketId(action.bucket);
    const body = action.kind === 'abandon' ? ABANDON : encodedAssignment(action.strategy, action.ttlMs);
    bucketIdParts[i] = bucketId;
    bodies[i] = body;
    const actionSize = 1 + varintSize(bucketId.length) + bucketId.length + body.length;
    size += 1 + varintSize(actionSize) + actionSize;
  }
  const out = Buffer.allocUnsafe(size);
  let at = 0;
  for (let i = 0; i < actions.length; i++) {
    const bucketId = bucketIdParts[i] as Buffer;
    const body = bodies[i] as Uint8Array;
    out[at++] = TAG_1_BYTES; // RateLimitQuotaResponse.bucket_action = 1
    at = writeVarint(out, at, 1 + varintSize(bucketId.length) + bucketId.length + body.length);
    out[at++] = TAG_1_BYTES; // BucketAction.bucket_id = 1
    at = writeVarint(out, at, bucketId.length);
    out.set(bucketId, at);
    at += bucketId.length;
    out.set(body, at);
    at += body.length;
  }
  responses.set(actions, out);
  return out;
}

/** Responses encoded, by their actions array (kept while the service holds the array). */
const responses = new WeakMap<readonly BucketAction[], Buffer>();
/** BucketAction.abandon_action = 3, an empty message. */
const ABANDON = Uint8Array.of((3 << 3) | BYTES, 0);
const bucketIdBytes = new WeakMap<BucketPairs, Buffer>();
/** The assignment last encoded for a strategy object: the service keeps a bucket's strategy while it holds. */
const assignmentOf = new WeakMap<Strategy, { readonly ttlMs: number; readonly bytes: Buffer }>();
const assignments = new Map<string, Buffer>();
/** Distinct strategy and TTL pairs kept encoded; past it the cache starts afresh. */
const MAX_ASSIGNMENTS = 10_000;

function encodedBucketId(pairs: BucketPairs): Buffer {
  let bytes = bucketIdBytes.get(pairs);
  if (!bytes) {
    const writer = new Writer();
    for (const [key, value] of pairs) writer.message(1, (entry) => entry.string(1, key).string(2, value));
    bytes = writer.finish();
    bucketIdBytes.set(pairs, bytes);
  }
  return bytes;
}

/** BucketAction.quota_assignment_action = 2, with its tag and length. */
function encodedAssignment(strategy: Strategy, ttlMs: number): Buffer {
  const last = assignmentOf.get(strategy);
  if (last?.ttlMs === ttlMs) return last.bytes;
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
  assignmentOf.set(strategy, { ttlMs, bytes });
  return bytes;
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
