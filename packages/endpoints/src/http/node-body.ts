import type { IncomingMessage } from 'node:http';
import { CallError } from '../errors.js';
import { bodyTooLarge } from './exchange.js';
import { type LingerBounds, lingerOnClose } from './linger.js';

/**
 * Whether a Node request carries a body, from the raw header list rather than `req.headers`, which
 * Node builds on first access: a GET then never pays for the header object.
 */
export function nodeRequestHasBody(req: IncomingMessage): boolean {
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 14 && name.toLowerCase() === 'content-length') {
      if (raw[i + 1] !== '0') return true;
    } else if (name.length === 17 && name.toLowerCase() === 'transfer-encoding') {
      return true;
    }
  }
  return false;
}

/**
 * Reads the body of a Node request, counting bytes as they arrive (chunked or not). The Node
 * interface uses it, and so does the fetch interface on a Node host that hands over the Node request
 * it wraps (srvx, @hono/node-server): reading it directly skips the web stream the host would build
 * around it, which cost about 100 µs of CPU per small JSON body under srvx.
 */
export class NodeBody {
  /** True when the body was left unread: the answer then closes the connection. */
  abandoned = false;
  readonly #req: IncomingMessage;
  readonly #linger: LingerBounds;
  #limit = 0;
  #size = 0;
  /** A small body arrives in one chunk: it is kept as it is, with no list and no copy. */
  #first: Buffer | undefined;
  #chunks: Buffer[] | undefined;
  /** The reader's callbacks, until one of them has been called. */
  #received: ((body: Uint8Array) => void) | undefined;
  #failed: ((error: unknown) => void) | undefined;
  // Listeners as fields, not named local functions: a bundler keeping names (tsx does) would wrap
  // each one, on every request. Added with `on`, not `once`, which would wrap each again; none is
  // removed after the end, as the request is done with by then.
  #onData: ((chunk: Buffer) => void) | undefined;
  #onEnd: (() => void) | undefined;

  constructor(req: IncomingMessage, linger: LingerBounds) {
    this.#req = req;
    this.#linger = linger;
  }

  read(limit: number, received: (body: Uint8Array) => void, failed: (error: unknown) => void): void {
    const req = this.#req;
    if (req.readableEnded) {
      failed(
        new CallError(
          500,
          'the request body was already read by another middleware; mount endpoints before body parsers',
        ),
      );
      return;
    }
    if (Number(req.headers['content-length']) > limit) {
      this.abandon();
      failed(bodyTooLarge(limit));
      return;
    }
    this.#limit = limit;
    this.#received = received;
    this.#failed = failed;
    this.#onData = (chunk) => this.#data(chunk);
    this.#onEnd = () => this.#end();
    req.on('data', this.#onData);
    req.on('end', this.#onEnd);
    req.on('error', (error: unknown) => this.#fail(error));
  }

  #data(chunk: Buffer): void {
    this.#size += chunk.byteLength;
    if (this.#size > this.#limit) {
      this.abandon();
      this.#fail(bodyTooLarge(this.#limit));
      return;
    }
    if (this.#first === undefined) this.#first = chunk;
    else if (this.#chunks === undefined) this.#chunks = [this.#first, chunk];
    else this.#chunks.push(chunk);
  }

  #end(): void {
    // Nothing more will be read: `abandon` now has nothing to stop.
    this.#onData = undefined;
    this.#onEnd = undefined;
    const received = this.#received;
    if (received === undefined) return;
    this.#received = undefined;
    this.#failed = undefined;
    const chunks = this.#chunks;
    received(chunks ? Buffer.concat(chunks, this.#size) : (this.#first ?? Buffer.alloc(0)));
  }

  #fail(error: unknown): void {
    const failed = this.#failed;
    if (failed === undefined) return;
    this.#received = undefined;
    this.#failed = undefined;
    failed(error);
  }

  #stopReading(): void {
    if (this.#onData !== undefined) this.#req.off('data', this.#onData);
    if (this.#onEnd !== undefined) this.#req.off('end', this.#onEnd);
    this.#onData = undefined;
    this.#onEnd = undefined;
  }

  /**
   * Stops reading a body that has not ended; the answer then says `Connection: close`, and once it
   * is written the connection lingers (see linger.ts) so that a client still sending reads it.
   */
  abandon(): void {
    if (this.#req.complete) return;
    this.abandoned = true;
    this.#stopReading();
    this.#req.pause();
    lingerOnClose(this.#req.socket, this.#linger);
  }
}
