import type { IncomingHttpHeaders } from 'node:http2';
import { Metadata } from '@grpc/grpc-js';

/** Headers that belong to HTTP/2 or the gRPC protocol itself, not to the call's metadata. */
const RESERVED = new Set(['content-type', 'te', 'grpc-timeout', 'grpc-encoding', 'grpc-accept-encoding']);

/**
 * The call's custom metadata from its request headers, as the grpc-js Metadata the handlers and
 * the tracing read: pseudo-headers and the protocol's own headers left out, a `-bin` header's
 * comma-separated base64 values decoded to bytes.
 */
export function metadataFromHeaders(headers: IncomingHttpHeaders): Metadata {
  const metadata = new Metadata();
  for (const key of Object.keys(headers)) {
    if (key.charCodeAt(0) === 0x3a || RESERVED.has(key)) continue;
    const value = headers[key];
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value : [value];
    if (key.endsWith('-bin')) {
      for (const joined of values) {
        for (const part of joined.split(',')) metadata.add(key, Buffer.from(part.trim(), 'base64'));
      }
    } else {
      for (const one of values) metadata.add(key, one);
    }
  }
  return metadata;
}
