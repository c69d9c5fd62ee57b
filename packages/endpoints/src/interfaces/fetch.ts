import { Readable } from 'node:stream';
import type { Dispatcher } from '../dispatch.js';
import { CallError } from '../errors.js';
import { bodyTooLarge, type Exchange } from '../http/exchange.js';
import { writeHeaders } from '../http/headers.js';
import type { Outcome, StreamBody } from '../http/outcome.js';
import { unsendable } from '../http/render.js';

/**
 * Runtimes pass different second arguments: Deno a `ServeHandlerInfo` with `remoteAddr`, Bun the
 * server, @hono/node-server its bindings. Only Deno's peer address is read; srvx puts it on `request.ip`.
 */
function peerAddress(request: Request, info: unknown): string | undefined {
  const ip = (request as { ip?: unknown }).ip;
  if (typeof ip === 'string') return ip;
  const hostname = (info as { remoteAddr?: { hostname?: unknown } } | undefined)?.remoteAddr?.hostname;
  return typeof hostname === 'string' ? hostname : undefined;
}

class FetchExchange implements Exchange {
  readonly method: string;
  readonly target: string;
  readonly remoteAddress: string | undefined;
  /** True when the body was left unread: the answer then says `Connection: close`. */
  bodyAbandoned = false;
  readonly #request: Request;
  #complete = false;

  constructor(request: Request, info: unknown) {
    this.#request = request;
    this.method = request.method;
    const url = request.url;
    const pathStart = url.indexOf('/', url.indexOf('//') + 2);
    this.target = pathStart === -1 ? '/' : url.slice(pathStart);
    this.remoteAddress = peerAddress(request, info);
  }

  header(name: string): string | undefined {
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
    return this.#request.body !== null;
  }

  async readBody(limit: number): Promise<Uint8Array> {
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
        if (this.bodyAbandoned) throw new CallError(503, 'the request body was abandoned');
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
    if (!this.#complete && this.#request.body !== null) this.bodyAbandoned = true;
  }
}

function toWebStream(body: StreamBody): ReadableStream<Uint8Array> {
  if (body instanceof ReadableStream) return body;
  if (body instanceof Readable) return Readable.toWeb(body) as ReadableStream<Uint8Array>;
  return Readable.toWeb(Readable.from(body)) as ReadableStream<Uint8Array>;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/**
 * Builds the web Response; an outcome the platform rejects (an invalid header, say) becomes a 500.
 * After an abandoned body the answer says `Connection: close`, which Node-based hosts honour.
 */
function respond(outcome: Outcome, method: string, close: boolean): Response {
  try {
    return toResponse(outcome, method, close);
  } catch (error) {
    return toResponse(unsendable(error), method, close);
  }
}

function toResponse(outcome: Outcome, method: string, close: boolean): Response {
  // A pass-through Response never follows an abandoned body: those end in the framework's own 413 or 503.
  if (outcome.passThrough) return outcome.passThrough;
  const headers = new Headers();
  if (outcome.headers) {
    writeHeaders(outcome.headers, (name, value) => {
      if (typeof value === 'string') headers.set(name, value);
      else for (const cookie of value) headers.append(name, cookie);
    });
  }
  if (outcome.contentType !== undefined) headers.set('content-type', outcome.contentType);
  if (close) headers.set('connection', 'close');
  const body = outcome.body;
  const empty = body === null || method === 'HEAD' || NULL_BODY_STATUSES.has(outcome.status);
  const payload =
    empty || typeof body === 'string' || body instanceof Uint8Array ? body : toWebStream(body as StreamBody);
  return new Response(empty ? null : (payload as ConstructorParameters<typeof Response>[0]), {
    status: outcome.status,
    headers,
  });
}

export type FetchHandler = (request: Request, info?: unknown) => Promise<Response>;

/** The ASGI counterpart: a web fetch handler for srvx, @hono/node-server, Deno.serve and Bun.serve. */
export function fetchInterface(dispatcher: Dispatcher): FetchHandler {
  return async (request, info) => {
    const exchange = new FetchExchange(request, info);
    const outcome = await dispatcher.dispatch(exchange);
    return respond(outcome, request.method, exchange.bodyAbandoned);
  };
}
