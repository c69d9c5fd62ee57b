import type { Readable } from 'node:stream';

export type StreamBody = ReadableStream<Uint8Array> | AsyncIterable<Uint8Array> | Readable;

/**
 * A finished answer, independent of the interface that sends it. `passThrough` carries a web
 * `Response` a handler returned, which goes out unchanged.
 */
export interface Outcome {
  readonly status: number;
  readonly contentType: string | undefined;
  /** Extra headers; null when neither the handler nor an error set any (the common case). */
  readonly headers: Headers | null;
  readonly body: string | Uint8Array | StreamBody | null;
  readonly passThrough?: Response;
}
