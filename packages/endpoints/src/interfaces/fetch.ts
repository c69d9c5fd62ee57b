import { Readable } from 'node:stream';
import type { Dispatcher } from '../dispatch.js';
import { CallError } from '../errors.js';
import type { Exchange } from '../http/exchange.js';
import { headerName, type Outcome, type StreamBody } from '../http/outcome.js';
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
  readonly #request: Request;

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

  origin(): string {
    return new URL(this.#request.url).origin;
  }

  hasBody(): boolean {
    return this.#request.body !== null;
  }

  async readBody(limit: number): Promise<Uint8Array> {
    const tooLarge = () => new CallError(413, `the request body is larger than the limit of ${limit} bytes`);
    if (Number(this.#request.headers.get('content-length')) > limit) throw tooLarge();
    const body = this.#request.body;
    if (body === null) return new Uint8Array(0);
    const chunks: Uint8Array[] = [];
    let size = 0;
    for await (const chunk of body) {
      size += chunk.byteLength;
      if (size > limit) throw tooLarge();
      chunks.push(chunk);
    }
    return chunks.length === 1 ? (chunks[0] as Uint8Array) : Buffer.concat(chunks);
  }
}

function toWebStream(body: StreamBody): ReadableStream<Uint8Array> {
  if (body instanceof ReadableStream) return body;
  if (body instanceof Readable) return Readable.toWeb(body) as ReadableStream<Uint8Array>;
  return Readable.toWeb(Readable.from(body)) as ReadableStream<Uint8Array>;
}

const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** Builds the web Response; an outcome the platform rejects (an invalid header, say) becomes a 500. */
function respond(outcome: Outcome, method: string): Response {
  try {
    return toResponse(outcome, method);
  } catch (error) {
    return toResponse(unsendable(error), method);
  }
}

function toResponse(outcome: Outcome, method: string): Response {
  if (outcome.passThrough) return outcome.passThrough;
  const headers = new Headers();
  if (outcome.headers)
    for (const [name, value] of outcome.headers)
      if (name !== 'set-cookie') headers.set(headerName(name), value);
  for (const cookie of outcome.headers?.getSetCookie() ?? []) headers.append('set-cookie', cookie);
  if (outcome.contentType !== undefined) headers.set('content-type', outcome.contentType);
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
    const outcome = await dispatcher.dispatch(new FetchExchange(request, info));
    return respond(outcome, request.method);
  };
}
