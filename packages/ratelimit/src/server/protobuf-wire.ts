/**
 * Protobuf varints written straight into a buffer, for the hand-written codecs of the gRPC
 * services (grpc-codec.ts, rlqs-codec.ts). Every value is a non-negative integer below 2^53.
 */

/** Bytes the varint of `value` takes. */
export function varintSize(value: number): number {
  let size = 1;
  for (let rest = value; rest >= 0x80; rest = Math.floor(rest / 0x80)) size++;
  return size;
}

/** Writes the varint of `value` at `start`; returns the offset after it. */
export function writeVarint(out: Uint8Array, start: number, value: number): number {
  let at = start;
  let rest = value;
  while (rest >= 0x80) {
    out[at++] = (rest % 0x80) | 0x80;
    rest = Math.floor(rest / 0x80);
  }
  out[at++] = rest;
  return at;
}
