import { EventEmitter } from 'node:events';
import type { IncomingHttpHeaders, OutgoingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import type { Metadata } from '@grpc/grpc-js';
import { frame } from './framing.js';
import { metadataFromHeaders } from './metadata.js';
import { type CallStatus, Code, statusTrailers } from './status.js';

const RESPONSE_HEADERS: OutgoingHttpHeaders = { ':status': 200, 'content-type': 'application/grpc' };
const WITH_TRAILERS = { waitForTrailers: true };
const END_STREAM = { endStream: true };
const OK_TRAILERS = statusTrailers({ code: Code.OK });
type Listener = Parameters<EventEmitter['on']>[1];

/** The 'wantTrailers' listener of a unary answer: one function for all streams, no closure per call. */
function sendOkTrailers(this: ServerHttp2Stream): void {
  this.sendTrailers(OK_TRAILERS);
}

/**
 * One call on one HTTP/2 stream, with the members of grpc-js' server call objects that the
 * service's handlers use, so the same handlers serve both transports:
 * - `request` (unary and server streaming) and `metadata` (built when first read);
 * - `write(message)`, `end()`, and `emit('error', status)` to end the call with that status;
 * - the events 'data' and 'end' (request messages, bidirectional), 'cancelled' (the client reset
 *   the stream, the connection went, or the deadline passed) and 'close'.
 * The response headers go out with the first message; a call that ends before any message ends
 * with a trailers-only answer. The event emitter is made only for calls that use one (streaming
 * handlers): a unary call answers through its callback and costs no emitter.
 */
export class H2Call {
  request: unknown;
  cancelled = false;
  readonly #stream: ServerHttp2Stream;
  readonly #headers: IncomingHttpHeaders;
  readonly #serialize: (message: never) => Buffer;
  #events: EventEmitter | undefined;
  #metadata: Metadata | undefined;
  #responding = false;
  #done = false;
  #deadline: NodeJS.Timeout | undefined;
  #trailers: OutgoingHttpHeaders = OK_TRAILERS;
  #reset = false;

  constructor(
    stream: ServerHttp2Stream,
    headers: IncomingHttpHeaders,
    serialize: (message: never) => Buffer,
  ) {
    this.#stream = stream;
    this.#headers = headers;
    this.#serialize = serialize;
  }

  get metadata(): Metadata {
    this.#metadata ??= metadataFromHeaders(this.#headers);
    return this.#metadata;
  }

  /** Whether the call has ended (its status sent, or cancelled): handlers stop writing. */
  get done(): boolean {
    return this.#done;
  }

  on(event: string, listener: Listener): this {
    this.#emitter().on(event, listener);
    return this;
  }

  once(event: string, listener: Listener): this {
    this.#emitter().once(event, listener);
    return this;
  }

  emit(event: string, ...args: unknown[]): boolean {
    return this.#events?.emit(event, ...args) ?? false;
  }

  /**
   * For streaming handlers: they end a call with an error by emitting it, and grpc-js sends that
   * status. Unary handlers answer through their callback.
   */
  endOnError(): void {
    this.on('error', (status: CallStatus) => this.sendStatus(status));
  }

  /** Ends the call with DEADLINE_EXCEEDED after `ms`, unless it has ended before. */
  setDeadline(ms: number): void {
    this.#deadline = setTimeout(() => {
      this.sendStatus({ code: Code.DEADLINE_EXCEEDED, details: 'Deadline exceeded' }, true);
      this.cancel();
    }, ms);
  }

  write(message: unknown): boolean {
    if (this.#done || this.#stream.destroyed) return false;
    this.#respond();
    return this.#stream.write(frame(this.#serialize(message as never)));
  }

  /** Sends `message` as the one answer of a unary call, then OK. */
  reply(message: unknown): void {
    if (this.#done) return;
    this.#done = true;
    clearTimeout(this.#deadline);
    const stream = this.#stream;
    if (stream.destroyed) return;
    const bytes = frame(this.#serialize(message as never));
    this.#responding = true;
    stream.respond(RESPONSE_HEADERS, WITH_TRAILERS);
    stream.once('wantTrailers', sendOkTrailers);
    stream.end(bytes);
  }

  end(): void {
    this.sendStatus({ code: Code.OK });
  }

  /**
   * Ends the call with `status`. With `reset`, the stream is reset right after the status, so a
   * client still sending stops (the request broke a rule, or the deadline passed).
   */
  sendStatus(status: CallStatus, reset = false): void {
    if (this.#done) return;
    this.#done = true;
    this.#reset = reset;
    clearTimeout(this.#deadline);
    const stream = this.#stream;
    if (stream.destroyed || stream.closed) return;
    if (this.#responding) {
      this.#trailers = statusTrailers(status);
      stream.end();
    } else {
      // Trailers-only: the status rides in the one HEADERS frame, which ends the stream.
      this.#responding = true;
      stream.respond({ ...RESPONSE_HEADERS, ...statusTrailers(status) }, END_STREAM);
      if (reset) stream.close();
    }
  }

  /** The stream ended before the call did: the client cancelled, reset it or went away. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    this.#done = true;
    clearTimeout(this.#deadline);
    this.emit('cancelled');
  }

  #emitter(): EventEmitter {
    this.#events ??= new EventEmitter();
    return this.#events;
  }

  /** The response headers of a streaming call, before its first message. */
  #respond(): void {
    if (this.#responding) return;
    this.#responding = true;
    this.#stream.respond(RESPONSE_HEADERS, WITH_TRAILERS);
    this.#stream.once('wantTrailers', () => {
      this.#stream.sendTrailers(this.#trailers);
      if (this.#reset) this.#stream.close();
    });
  }
}
