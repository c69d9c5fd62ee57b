/**
 * Hand-encodes a RateLimitRequest (rls.proto field numbers) into one gRPC message frame, so the
 * load generator replays fixed bytes and spends nothing on encoding.
 */
export interface BenchDescriptor {
  readonly entries: ReadonlyArray<{ readonly key: string; readonly value: string }>;
}

function varint(value: number): number[] {
  const bytes: number[] = [];
  let rest = value;
  while (rest > 0x7f) {
    bytes.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  bytes.push(rest);
  return bytes;
}

/** A length-delimited field: tag, length, bytes. */
function field(fieldNumber: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([(fieldNumber << 3) | 2, ...varint(payload.length)]), payload]);
}

function text(fieldNumber: number, value: string): Buffer {
  return field(fieldNumber, Buffer.from(value, 'utf8'));
}

/** RateLimitRequest{domain = 1, descriptors = 2 {entries = 1 {key = 1, value = 2}}}. */
export function encodeRateLimitRequest(domain: string, descriptors: readonly BenchDescriptor[]): Buffer {
  const parts = [text(1, domain)];
  for (const descriptor of descriptors) {
    const entries = descriptor.entries.map((entry) =>
      field(1, Buffer.concat([text(1, entry.key), text(2, entry.value)])),
    );
    parts.push(field(2, Buffer.concat(entries)));
  }
  return Buffer.concat(parts);
}

/** The gRPC length-prefixed message: compressed flag 0, 4-byte big-endian length, message. */
export function grpcFrame(message: Buffer): Buffer {
  const header = Buffer.alloc(5);
  header.writeUInt32BE(message.length, 1);
  return Buffer.concat([header, message]);
}
