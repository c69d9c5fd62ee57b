import type { OutgoingHttpHeaders } from 'node:http2';

/** gRPC status codes (grpc/status.proto), the ones this transport sends itself. */
export const Code = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** A call's end: what grpc-js handlers pass to their callback or emit as 'error'. */
export interface CallStatus {
  readonly code: number;
  readonly details?: string | undefined;
}

/** The encodings a request message may come in; sent back with UNIMPLEMENTED for any other. */
export const ACCEPT_ENCODING = 'identity,gzip';

/**
 * grpc-message as PROTOCOL-HTTP2.md has it: the UTF-8 bytes, with every byte outside
 * 0x20–0x7E, and '%' itself, written as %XX. Plain ASCII messages (most) are returned as they are.
 */
export function percentEncode(message: string): string {
  if (PLAIN.test(message)) return message;
  let out = '';
  for (const byte of Buffer.from(message, 'utf8')) {
    out += byte >= 0x20 && byte <= 0x7e && byte !== 0x25 ? String.fromCharCode(byte) : `%${HEX[byte]}`;
  }
  return out;
}

const PLAIN = /^[\x20-\x24\x26-\x7e]*$/;
const HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).toUpperCase().padStart(2, '0'));

/** The trailers that end a call (or, with the response headers, a trailers-only answer). */
export function statusTrailers(status: CallStatus): OutgoingHttpHeaders {
  if (status.code === Code.OK) return OK_TRAILERS;
  const trailers: OutgoingHttpHeaders = { 'grpc-status': String(status.code) };
  if (status.details) trailers['grpc-message'] = percentEncode(status.details);
  return trailers;
}

const OK_TRAILERS: OutgoingHttpHeaders = Object.freeze({ 'grpc-status': '0' }) as OutgoingHttpHeaders;
