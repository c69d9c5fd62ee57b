import { gunzipSync } from 'node:zlib';
import { type CallStatus, Code } from './status.js';

/** The length-prefixed message's prefix: one flag byte (1 = compressed), four bytes of length. */
export const PREFIX_BYTES = 5;

/** The request encodings this transport reads (grpc-encoding). */
export type Encoding = 'identity' | 'gzip';

/** One message in its frame, uncompressed. */
export function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, PREFIX_BYTES);
  return out;
}

/**
 * Cuts a request body into its messages as its DATA chunks arrive: a message may be split across
 * chunks and a chunk may hold several. A message that lies whole inside one chunk is handed on as a
 * view of it, with no copy. Memory is bounded by the size limit: a prefix announcing more than
 * `maxMessageBytes` is refused before any of its bytes are kept, and a gzip message may not
 * inflate past the limit either.
 */
export class MessageReader {
  readonly #maxMessageBytes: number;
  readonly #encoding: Encoding;
  /** A prefix split across chunks is gathered here (allocated the first time one is). */
  #prefix: Buffer | undefined;
  #prefixFill = 0;
  #body: Buffer | undefined;
  #bodyFill = 0;
  #compressed = false;

  constructor(maxMessageBytes: number, encoding: Encoding) {
    this.#maxMessageBytes = maxMessageBytes;
    this.#encoding = encoding;
  }

  /**
   * Reads one chunk, calling `onMessage` for every message it completes. Returns the status that
   * ends the call when the bytes break a rule; nothing after that may be pushed.
   */
  push(chunk: Buffer, onMessage: (message: Buffer) => void): CallStatus | undefined {
    let at = 0;
    while (at < chunk.length) {
      if (this.#body === undefined) {
        let length: number;
        if (this.#prefixFill === 0 && chunk.length - at >= PREFIX_BYTES) {
          length = chunk.readUInt32BE(at + 1);
          const problem = this.#startMessage(chunk[at] as number, length);
          if (problem) return problem;
          at += PREFIX_BYTES;
          // The common case: the whole message is in this chunk.
          if (chunk.length - at >= length) {
            const problem = this.#deliver(chunk.subarray(at, at + length), onMessage);
            if (problem) return problem;
            at += length;
            continue;
          }
        } else {
          this.#prefix ??= Buffer.allocUnsafe(PREFIX_BYTES);
          const prefix = this.#prefix;
          const taken = Math.min(PREFIX_BYTES - this.#prefixFill, chunk.length - at);
          chunk.copy(prefix, this.#prefixFill, at, at + taken);
          this.#prefixFill += taken;
          at += taken;
          if (this.#prefixFill < PREFIX_BYTES) break;
          this.#prefixFill = 0;
          length = prefix.readUInt32BE(1);
          const problem = this.#startMessage(prefix[0] as number, length);
          if (problem) return problem;
        }
        this.#body = Buffer.allocUnsafe(length);
        this.#bodyFill = 0;
      }
      const body = this.#body;
      const taken = Math.min(body.length - this.#bodyFill, chunk.length - at);
      chunk.copy(body, this.#bodyFill, at, at + taken);
      this.#bodyFill += taken;
      at += taken;
      if (this.#bodyFill === body.length) {
        this.#body = undefined;
        const problem = this.#deliver(body, onMessage);
        if (problem) return problem;
      }
    }
    return undefined;
  }

  /** At the end of the request body: a message cut short is an error. */
  end(): CallStatus | undefined {
    if (this.#prefixFill === 0 && this.#body === undefined) return undefined;
    return { code: Code.INTERNAL, details: 'the request ended inside a message' };
  }

  #startMessage(flag: number, length: number): CallStatus | undefined {
    if (flag > 1) return { code: Code.INTERNAL, details: `invalid message flag ${flag}` };
    if (flag === 1 && this.#encoding === 'identity') {
      return { code: Code.INTERNAL, details: 'a compressed message without grpc-encoding' };
    }
    if (length > this.#maxMessageBytes) return this.#tooLarge(length);
    this.#compressed = flag === 1;
    return undefined;
  }

  #deliver(bytes: Buffer, onMessage: (message: Buffer) => void): CallStatus | undefined {
    if (!this.#compressed) {
      onMessage(bytes);
      return undefined;
    }
    let inflated: Buffer;
    try {
      inflated = gunzipSync(bytes, { maxOutputLength: this.#maxMessageBytes });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        return this.#tooLarge(this.#maxMessageBytes + 1);
      }
      return { code: Code.INTERNAL, details: `cannot decompress the message: ${(error as Error).message}` };
    }
    onMessage(inflated);
    return undefined;
  }

  #tooLarge(length: number): CallStatus {
    return {
      code: Code.RESOURCE_EXHAUSTED,
      details: `received message larger than max (${length} vs. ${this.#maxMessageBytes})`,
    };
  }
}
