import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { TLSSocket } from 'node:tls';
import type { Dispatcher } from '../dispatch.js';
import type { Exchange } from '../http/exchange.js';
import { writeHeaders } from '../http/headers.js';
import type { LingerBounds } from '../http/linger.js';
import { NodeBody, nodeRequestHasBody } from '../http/node-body.js';
import { type Outcome, PendingOutcome, type StreamBody } from '../http/outcome.js';
import { unsendable } from '../http/render.js';

/** The Node request seen through the dispatcher's eyes; nothing is copied until asked for. */
class NodeExchange implements Exchange {
  readonly method: string;
  readonly target: string;
  readonly onConnection = true;
  readonly #req: IncomingMessage;
  readonly #linger: LingerBounds;
  #headers: Headers | undefined;
  #body: NodeBody | undefined;

  constructor(req: IncomingMessage, linger: LingerBounds) {
    this.#req = req;
    this.#linger = linger;
    this.method = req.method ?? 'GET';
    this.target = req.url ?? '/';
  }

  /** True when the body was left unread: the answer then closes the connection. */
  get bodyAbandoned(): boolean {
    return this.#body?.abandoned ?? false;
  }

  header(name: string): string | undefined {
    const value = this.#req.headers[name];
    return Array.isArray(value) ? value.join(', ') : value;
  }

  headers(): Headers {
    if (this.#headers === undefined) {
      const headers = new Headers();
      const raw = this.#req.rawHeaders;
      for (let i = 0; i < raw.length; i += 2) headers.append(raw[i] as string, raw[i + 1] as string);
      this.#headers = headers;
    }
    return this.#headers;
  }

  origin(): string {
    const scheme = (this.#req.socket as TLSSocket).encrypted ? 'https' : 'http';
    return `${scheme}://${this.#req.headers.host ?? 'localhost'}`;
  }

  protocol(): string {
    return `HTTP/${this.#req.httpVersion}`;
  }

  get remoteAddress(): string | undefined {
    return this.#req.socket.remoteAddress;
  }

  hasBody(): boolean {
    return nodeRequestHasBody(this.#req);
  }

  readBody(limit: number, received: (body: Uint8Array) => void, failed: (error: unknown) => void): void {
    this.#body ??= new NodeBody(this.#req, this.#linger);
    this.#body.read(limit, received, failed);
  }

  abandonBody(): void {
    this.#body ??= new NodeBody(this.#req, this.#linger);
    this.#body.abandon();
  }
}

function toReadable(body: StreamBody): Readable {
  if (body instanceof Readable) return body;
  if (body instanceof ReadableStream)
    return Readable.fromWeb(body as import('node:stream/web').ReadableStream);
  return Readable.from(body as AsyncIterable<Uint8Array>);
}

function streamOut(source: Readable, res: ServerResponse): void {
  pipeline(source, res).catch((error: unknown) => {
    // Headers are gone already; the only honest signal left is a broken connection.
    res.destroy(error as Error);
  });
}

function sendResponse(response: Response, res: ServerResponse): void {
  res.statusCode = response.status;
  res.statusMessage = response.statusText || '';
  writeHeaders(response.headers, (name, value) => res.setHeader(name, value));
  if (response.body === null) res.end();
  else streamOut(toReadable(response.body), res);
}

/** Writes an outcome to a Node response; the common JSON case is one writeHead and one end. */
function send(outcome: Outcome, res: ServerResponse, close: boolean): void {
  if (close) res.setHeader('connection', 'close');
  if (outcome.passThrough) {
    sendResponse(outcome.passThrough, res);
    return;
  }
  const headers = outcome.headers;
  const body = outcome.body;
  if (!close && headers === null && typeof body === 'string' && outcome.contentType !== undefined) {
    // The hot path: headers as one flat list, with the length, so Node neither keeps a header map,
    // nor walks an object's keys, nor chunks; the head and body then leave in one write.
    res.writeHead(outcome.status, [
      'content-type',
      outcome.contentType,
      'content-length',
      Buffer.byteLength(body),
    ]);
    res.end(body);
    return;
  }
  res.statusCode = outcome.status;
  if (outcome.contentType !== undefined) res.setHeader('content-type', outcome.contentType);
  if (headers !== null) writeHeaders(headers, (name, value) => res.setHeader(name, value));
  // setHeader, not writeHead, so `end(body)` can still add Content-Length to a one-piece body.
  if (body === null || typeof body === 'string' || body instanceof Uint8Array) res.end(body);
  else streamOut(toReadable(body), res);
}

/**
 * Sends an outcome; one Node rejects (an invalid header value, say) becomes a 500, never a crash.
 * After an abandoned body the answer carries `Connection: close`, so Node ends the connection once
 * it is written instead of reading the rest of the body.
 */
function respond(outcome: Outcome, exchange: NodeExchange, res: ServerResponse): void {
  const close = exchange.bodyAbandoned;
  try {
    send(outcome, res, close);
  } catch (error) {
    if (res.headersSent) {
      res.destroy(error as Error);
      return;
    }
    for (const name of res.getHeaderNames()) res.removeHeader(name);
    send(unsendable(error), res, close);
  }
}

export type NodeHandler = (req: IncomingMessage, res: ServerResponse) => void;

/** The WSGI counterpart: a request listener for node:http, and middleware for Express and Connect. */
export function nodeInterface(dispatcher: Dispatcher, linger: LingerBounds): NodeHandler {
  return (req, res) => {
    const exchange = new NodeExchange(req, linger);
    const outcome = dispatcher.dispatch(exchange);
    if (outcome instanceof PendingOutcome) outcome.receive((settled) => respond(settled, exchange, res));
    else respond(outcome, exchange, res);
  };
}
