import { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { Dispatcher } from '../dispatch.js';
import { CallError } from '../errors.js';
import { bodyTooLarge, type Exchange } from '../http/exchange.js';
import { writeHeaders } from '../http/headers.js';
import type { LingerBounds } from '../http/linger.js';
import { NodeBody, nodeRequestHasBody } from '../http/node-body.js';
import { type Outcome, PendingOutcome, type StreamBody } from '../http/outcome.js';
import { JSON_TYPE, unsendable } from '../http/render.js';

/**
 * Runtimes pass different second arguments: Deno a `ServeHandlerInfo` with `remoteAddr`, Bun the
 * server, @hono/node-server its bindings `{ incoming, outgoing }`. srvx puts the peer address on
 * `request.ip` (after its trusted-proxy rules); on a Node host without it, the socket's address.
 */
function peerAddress(request: Request, info: unknown, node: IncomingMessage | undefined): string | undefined {
  const ip = (request as { ip?: unknown }).ip;
  if (typeof ip === 'string') return ip;
  const hostname = (info as { remoteAddr?: { hostname?: unknown } } | undefined)?.remoteAddr?.hostname;
  if (typeof hostname === 'string') return hostname;
  return node?.socket.remoteAddress;
}

/**
 * The Node requests under a web `Request` on the Node hosts: srvx documents it as
 * `request.runtime.node.req`, @hono/node-server passes it as `incoming` in its bindings. Each is
 * undefined under any other host (or HTTP/2, whose requests are not IncomingMessages).
 */
function srvxRequest(request: Request): IncomingMessage | undefined {
  const req = (request as { runtime?: { node?: { req?: unknown } } }).runtime?.node?.req;
  return req instanceof IncomingMessage ? req : undefined;
}

function honoIncoming(info: unknown): IncomingMessage | undefined {
  const incoming = (info as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof IncomingMessage ? incoming : undefined;
}

class FetchExchange implements Exchange {
  readonly method: string;
  readonly target: string;
  /** Known only on a Node host (srvx, @hono/node-server), where the Node request is at hand. */
  readonly onConnection: boolean;
  /**
   * Whether the host writes a header record without converting it, as @hono/node-server does (it
   * turns a list into a `Headers`); srvx's FastResponse reads a list of pairs as it is, and turns a
   * record into one first.
   */
  readonly takesHeaderRecord: boolean;
  readonly #request: Request;
  readonly #info: unknown;
  /** On a Node host, the Node request itself, read directly for the target, headers and body. */
  readonly #node: IncomingMessage | undefined;
  readonly #linger: LingerBounds;
  #nodeBody: NodeBody | undefined;
  #complete = false;
  #streamAbandoned = false;

  constructor(request: Request, info: unknown, linger: LingerBounds) {
    this.#request = request;
    this.#linger = linger;
    this.#info = info;
    this.method = request.method;
    const fromSrvx = srvxRequest(request);
    const fromHono = fromSrvx === undefined ? honoIncoming(info) : undefined;
    const node = fromSrvx ?? fromHono;
    this.#node = node;
    this.onConnection = node !== undefined;
    this.takesHeaderRecord = fromHono !== undefined;
    const raw = node?.url;
    if (raw !== undefined && raw.charCodeAt(0) === 47 /* / */) {
      // srvx would build a URL object to answer `request.url`; the target as sent is right here.
      this.target = raw;
    } else {
      const url = request.url;
      const pathStart = url.indexOf('/', url.indexOf('//') + 2);
      this.target = pathStart === -1 ? '/' : url.slice(pathStart);
    }
  }

  /** True when the body was left unread: the answer then says `Connection: close`. */
  get bodyAbandoned(): boolean {
    return this.#streamAbandoned || (this.#nodeBody?.abandoned ?? false);
  }

  get remoteAddress(): string | undefined {
    return peerAddress(this.#request, this.#info, this.#node);
  }

  header(name: string): string | undefined {
    const node = this.#node;
    if (node !== undefined) {
      // Straight from the Node request, as the Node interface reads it: the host's `headers`
      // would first build a wrapper over the same object.
      const value = node.headers[name];
      return Array.isArray(value) ? value.join(', ') : value;
    }
    return this.#request.headers.get(name) ?? undefined;
  }

  headers(): Headers {
    return this.#request.headers;
  }

  /** A web Request does not say; HTTP/1.1 is what a Node host speaks to most clients. */
  protocol(): string {
    return 'HTTP/1.1';
  }

  origin(): string {
    return new URL(this.#request.url).origin;
  }

  hasBody(): boolean {
    return this.#readsNode()
      ? nodeRequestHasBody(this.#node as IncomingMessage)
      : this.#request.body !== null;
  }

  /**
   * Whether the body is read from the host's Node request rather than the web stream the host
   * would wrap around it (unless a middleware before us has read it through the Request). Under
   * @hono/node-server, merely asking for `request.body` builds a full web Request.
   */
  #readsNode(): boolean {
    return this.#node !== undefined && !this.#request.bodyUsed;
  }

  readBody(limit: number, received: (body: Uint8Array) => void, failed: (error: unknown) => void): void {
    if (this.#readsNode()) {
      this.#nodeBody ??= new NodeBody(this.#node as IncomingMessage, this.#linger);
      this.#nodeBody.read(limit, received, failed);
    } else {
      this.#readStream(limit).then(received, failed);
    }
  }

  async #readStream(limit: number): Promise<Uint8Array> {
    if (Number(this.#request.headers.get('content-length')) > limit) {
      this.abandonBody();
      throw bodyTooLarge(limit);
    }
    const body = this.#request.body;
    if (body === null) return new Uint8Array(0);
    // No cancel: on some hosts cancelling the body destroys the socket the answer must go out on.
    // Reading just stops, and the answer's `Connection: close` ends the connection.
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        if (this.#streamAbandoned) throw new CallError(503, 'the request body was abandoned');
        size += value.byteLength;
        if (size > limit) {
          this.abandonBody();
          throw bodyTooLarge(limit);
        }
        chunks.push(value);
      }
    } finally {
      reader.releaseLock();
    }
    this.#complete = true;
    return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  }

  abandonBody(): void {
    if (this.#nodeBody !== undefined || this.#readsNode()) {
      this.#nodeBody ??= new NodeBody(this.#node as IncomingMessage, this.#linger);
      this.#nodeBody.abandon();
    } else if (!this.#complete && this.#request.body !== null) {
      this.#streamAbandoned = true;
    }
  }
}

function toWebStream(body: StreamBody): ReadableStream<Uint8Array> {
  if (body instanceof ReadableStream) return body;
  if (body instanceof Readable) return Readable.toWeb(body) as ReadableStream<Uint8Array>;
  return Readable.toWeb(Readable.from(body)) as ReadableStream<Uint8Array>;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** What Node refuses in a header value (its `checkInvalidHeaderChar`); a `Headers` refuses less. */
const INVALID_HEADER_CHAR = /[^\t\x20-\x7e\x80-\xff]/;

/**
 * A header value as Node will write it, or a TypeError, which `respond` turns into a 500. The host
 * writes the headers after the Response leaves us, and a throw there does not always become a 500:
 * @hono/node-server loses it when the Response came back at once, and the request hangs.
 */
function sendable(name: string, value: string): string {
  if (value !== JSON_TYPE && INVALID_HEADER_CHAR.test(value)) {
    throw new TypeError(`the ${name} header holds a character HTTP does not allow`);
  }
  return value;
}

/**
 * Builds the web Response; an outcome the platform rejects (an invalid header, say) becomes a 500.
 * After an abandoned body the answer says `Connection: close`, which Node-based hosts honour.
 */
function respond(outcome: Outcome, exchange: FetchExchange): Response {
  try {
    return toResponse(outcome, exchange);
  } catch (error) {
    return toResponse(unsendable(error), exchange);
  }
}

function toResponse(outcome: Outcome, exchange: FetchExchange): Response {
  // A pass-through Response never follows an abandoned body: those end in the framework's own 413 or 503.
  if (outcome.passThrough) return outcome.passThrough;
  const { method } = exchange;
  const close = exchange.bodyAbandoned;
  const body = outcome.body;
  if (outcome.headers === null && !close && typeof body === 'string' && outcome.contentType !== undefined) {
    // The common answer: its one header in the plain form the host writes out as it is (srvx and
    // @hono/node-server build a `Headers` only when given one), not a `Headers` to fill and walk.
    if (method !== 'HEAD' && !NULL_BODY_STATUSES.has(outcome.status)) {
      const contentType = sendable('content-type', outcome.contentType);
      return new Response(body, {
        status: outcome.status,
        headers: exchange.takesHeaderRecord
          ? { 'content-type': contentType }
          : [['content-type', contentType]],
      });
    }
  }
  const headers = new Headers();
  if (outcome.headers) {
    writeHeaders(outcome.headers, (name, value) => {
      if (typeof value === 'string') headers.set(name, sendable(name, value));
      else for (const cookie of value) headers.append(name, sendable(name, cookie));
    });
  }
  if (outcome.contentType !== undefined)
    headers.set('content-type', sendable('content-type', outcome.contentType));
  if (close) headers.set('connection', 'close');
  const empty = body === null || method === 'HEAD' || NULL_BODY_STATUSES.has(outcome.status);
  const payload =
    empty || typeof body === 'string' || body instanceof Uint8Array ? body : toWebStream(body as StreamBody);
  return new Response(empty ? null : (payload as ConstructorParameters<typeof Response>[0]), {
    status: outcome.status,
    headers,
  });
}

/**
 * The fetch handler every host takes (srvx, @hono/node-server, Deno.serve, Bun.serve, and hono's
 * own `app.fetch`): the Response itself when the answer is ready in this tick, a promise otherwise.
 */
export type FetchHandler = (request: Request, info?: unknown) => Response | Promise<Response>;

/** The ASGI counterpart: a web fetch handler for srvx, @hono/node-server, Deno.serve and Bun.serve. */
export function fetchInterface(dispatcher: Dispatcher, linger: LingerBounds): FetchHandler {
  return (request, info) => {
    try {
      const exchange = new FetchExchange(request, info, linger);
      const outcome = dispatcher.dispatch(exchange);
      // A request answered in this tick gets its Response at once: the host then writes it without
      // a promise and a turn of the microtask queue in between.
      if (outcome instanceof PendingOutcome) {
        // One promise, resolved in the tick the outcome exists (the body's end, say).
        return new Promise((resolve, reject) =>
          outcome.receive((settled) => {
            try {
              resolve(respond(settled, exchange));
            } catch (error) {
              reject(error);
            }
          }),
        );
      }
      const response = respond(outcome, exchange);
      // A Response the handler built itself goes out unchecked, so a host may still fail to write
      // it; handed over as a promise, it takes the host's path that turns such a failure into a
      // 500 (@hono/node-server's path for a Response returned at once loses it, and Node exits).
      return outcome.passThrough ? Promise.resolve(response) : response;
    } catch (error) {
      return Promise.reject(error);
    }
  };
}
