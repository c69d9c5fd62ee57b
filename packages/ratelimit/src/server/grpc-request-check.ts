import { isUtf8 } from 'node:buffer';

/** Why a serialized request is refused before it is decoded. */
export type RequestProblem =
  | { readonly kind: 'invalid-utf8'; readonly field: string }
  | { readonly kind: 'too-many-descriptors' };

/**
 * Reads a serialized RateLimitRequest before the decoder does, for two things the decoded
 * message can no longer show or that decoding would already pay for:
 * - a cache-key string (the domain, a descriptor entry's key or value) that is not valid UTF-8.
 *   Decoding turns every invalid byte into U+FFFD, so `\xff` and `\xfe` would share one counter;
 *   grpc-go refuses such messages.
 * - more than `maxDescriptors` descriptors: decoding 100,000 of them alone blocks the event loop
 *   for about 0.4 s. The count stops at the first descriptor past the bound, so the check costs
 *   at most the bound's worth of work.
 * A malformed message is left to the decoder, which reports it on its own.
 *
 * Field numbers (rls.proto): RateLimitRequest.domain = 1, .descriptors = 2;
 * RateLimitDescriptor.entries = 1; Entry.key = 1, .value = 2.
 */
export function checkRequestBytes(bytes: Uint8Array, maxDescriptors: number): RequestProblem | undefined {
  descriptorsSeen = 0;
  descriptorBound = maxDescriptors;
  const invalid = walk(bytes, 0, bytes.length, REQUEST);
  if (invalid === TOO_MANY) return { kind: 'too-many-descriptors' };
  return invalid === undefined ? undefined : { kind: 'invalid-utf8', field: invalid };
}

const TOO_MANY = Symbol('too many descriptors');
// Module variables for the one walk in progress (walks are synchronous), so it allocates nothing.
let descriptorsSeen = 0;
let descriptorBound = 0;

/** Per message: which length-delimited fields are strings to check, and which are messages to enter. */
interface Shape {
  readonly strings: ReadonlyMap<number, string>;
  readonly messages: ReadonlyMap<number, Shape>;
}

const ENTRY: Shape = {
  strings: new Map([
    [1, 'descriptor entry key'],
    [2, 'descriptor entry value'],
  ]),
  messages: new Map(),
};
const DESCRIPTOR: Shape = { strings: new Map(), messages: new Map([[1, ENTRY]]) };
const REQUEST: Shape = { strings: new Map([[1, 'domain']]), messages: new Map([[2, DESCRIPTOR]]) };
const DESCRIPTORS_FIELD = 2;

function walk(
  bytes: Uint8Array,
  start: number,
  end: number,
  shape: Shape,
): string | typeof TOO_MANY | undefined {
  let at = start;
  while (at < end) {
    const tag = readVarint(bytes, at, end);
    if (tag < 0) return undefined;
    at = varintEnd;
    const field = Math.floor(tag / 8);
    switch (tag % 8) {
      case 0:
        if (readVarint(bytes, at, end) < 0) return undefined;
        at = varintEnd;
        break;
      case 1:
        at += 8;
        break;
      case 5:
        at += 4;
        break;
      case 2: {
        const length = readVarint(bytes, at, end);
        const from = varintEnd;
        if (length < 0 || from + length > end) return undefined;
        at = from + length;
        const name = shape.strings.get(field);
        if (name !== undefined && !isValidUtf8(bytes, from, at)) return name;
        if (shape === REQUEST && field === DESCRIPTORS_FIELD && ++descriptorsSeen > descriptorBound) {
          return TOO_MANY;
        }
        const inner = shape.messages.get(field);
        if (inner) {
          const found = walk(bytes, from, at, inner);
          if (found !== undefined) return found;
        }
        break;
      }
      default:
        return undefined;
    }
  }
  return undefined;
}

/** ASCII is checked here, so only strings with other characters cost a view. */
function isValidUtf8(bytes: Uint8Array, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    if ((bytes[i] as number) >= 0x80) return isUtf8(bytes.subarray(from, to));
  }
  return true;
}

/** Where the last varint read ended; a module variable so reading one allocates nothing. */
let varintEnd = 0;

/** The varint at `at`, or -1 when it runs past `end` or past ten bytes. */
function readVarint(bytes: Uint8Array, at: number, end: number): number {
  let value = 0;
  let scale = 1;
  for (let i = at; i < end && i < at + 10; i++) {
    const byte = bytes[i] as number;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) {
      varintEnd = i + 1;
      return value;
    }
    scale *= 128;
  }
  return -1;
}
