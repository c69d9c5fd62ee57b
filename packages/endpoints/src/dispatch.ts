import { bindArguments, type Keywords } from './binding/bind.js';
import { CallError, isCallError } from './errors.js';
import { admitOrigin, answerPreflight } from './extras/cors.js';
import { parseBody } from './http/body.js';
import type { Exchange } from './http/exchange.js';
import type { Outcome } from './http/outcome.js';
import { parseSearch } from './http/query.js';
import { renderError, renderValue, unsendable } from './http/render.js';
import { EndpointRequest } from './http/request.js';
import { EndpointResponse } from './http/response.js';
import type { Handler } from './routing/handler.js';
import { type RouteNode, walk } from './routing/tree.js';
import type { Settings } from './settings.js';

const NO_KEYWORDS: Keywords = Object.freeze(Object.create(null));

/**
 * Splits a raw path on `/`, drops empty segments (so `/foo/`, `//foo` and `/foo` are one path), and
 * percent-decodes each segment after splitting, so `%2F` stays inside its segment.
 */
function splitPath(path: string): string[] {
  const segments: string[] = [];
  let start = 1;
  while (start <= path.length) {
    let end = path.indexOf('/', start);
    if (end === -1) end = path.length;
    if (end > start) {
      const raw = path.slice(start, end);
      segments.push(raw.includes('%') ? decodeSegment(raw) : raw);
    }
    start = end + 1;
  }
  return segments;
}

function decodeSegment(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new CallError(400, `malformed percent-encoding in path segment '${raw}'`);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/**
 * The request pipeline shared by the Node and fetch interfaces: route, bind, call, render. It stays
 * synchronous for requests without a body whose handler returns a plain value, which is the hot path.
 */
export class Dispatcher {
  readonly #root: RouteNode;
  readonly #settings: Settings;

  constructor(root: RouteNode, settings: Settings) {
    this.#root = root;
    this.#settings = settings;
  }

  dispatch(exchange: Exchange): Outcome | Promise<Outcome> {
    const target = exchange.target;
    const query = target.indexOf('?');
    const path = query === -1 ? target : target.slice(0, query);
    const search = query === -1 ? '' : target.slice(query + 1);
    const response = new EndpointResponse();
    try {
      const outcome = this.#route(exchange, path, search, response);
      if (outcome instanceof Promise) return this.#bounded(outcome, exchange, path, response);
      return outcome;
    } catch (error) {
      return this.#fail(error, response, exchange, path);
    }
  }

  #route(exchange: Exchange, path: string, search: string, response: EndpointResponse) {
    const segments = splitPath(path);
    const node = walk(this.#root, segments);
    const consumed = node.depth;
    const handler = this.#select(node, exchange.method);
    if (handler === undefined) return this.#unrouted(node, consumed < segments.length, exchange, path);
    const positionals = consumed === 0 ? segments : segments.slice(consumed);
    if (handler.cors) {
      if (handler.preflight) {
        answerPreflight(handler.cors, (name) => exchange.header(name), response);
        return renderValue(undefined, response);
      }
      admitOrigin(handler.cors, exchange.header('origin'), response);
    }
    const keywords = search === '' ? null : parseSearch(search);
    if (exchange.hasBody())
      return this.#withBody(handler, exchange, path, search, positionals, keywords, response);
    return this.#invoke(handler, exchange, path, search, positionals, keywords, undefined, response);
  }

  #select(node: RouteNode, method: string): Handler | undefined {
    const handlers = node.handlers;
    if (handlers === null) return undefined;
    return (
      handlers.get(method) ??
      (method === 'HEAD' && this.#settings.headFallback ? handlers.get('GET') : undefined) ??
      handlers.get('ANY')
    );
  }

  /** 404 when segments were left over, else 501 with an `Allow` header naming the class's methods. */
  #unrouted(node: RouteNode, leftover: boolean, exchange: Exchange, path: string): never {
    if (leftover) throw new CallError(404, `${exchange.method} ${path} not found`);
    const headers = node.allow ? { allow: node.allow } : undefined;
    throw new CallError(501, `${exchange.method} ${path} not implemented`, { headers });
  }

  async #withBody(
    handler: Handler,
    exchange: Exchange,
    path: string,
    search: string,
    pathPositionals: string[],
    queryKeywords: Keywords | null,
    response: EndpointResponse,
  ): Promise<Outcome> {
    const bytes = await exchange.readBody(this.#settings.bodyLimit);
    const body = await parseBody(bytes, exchange.header('content-type'));
    const positionals =
      body.positionals.length > 0 ? [...pathPositionals, ...body.positionals] : pathPositionals;
    const keywords =
      body.keywords === null
        ? queryKeywords
        : Object.assign(Object.create(null), queryKeywords, body.keywords);
    return this.#invoke(handler, exchange, path, search, positionals, keywords, body.value, response);
  }

  #invoke(
    handler: Handler,
    exchange: Exchange,
    path: string,
    search: string,
    positionals: unknown[],
    keywords: Keywords | null,
    body: unknown,
    response: EndpointResponse,
  ): Outcome | Promise<Outcome> {
    const args = bindArguments(handler.plan, positionals, keywords);
    const request = new EndpointRequest(exchange, path, search, positionals, keywords ?? NO_KEYWORDS, body);
    if (args instanceof Promise) {
      return args.then((bound) => this.#call(handler, request, response, bound));
    }
    return this.#call(handler, request, response, args);
  }

  #call(
    handler: Handler,
    request: EndpointRequest,
    response: EndpointResponse,
    args: unknown[],
  ): Outcome | Promise<Outcome> {
    const controller = new handler.Class(request, response);
    const result = handler.fn.apply(controller, args);
    if (isThenable(result)) {
      return Promise.resolve(result).then((value) => renderValue(value, response, handler.mediaType));
    }
    return renderValue(result, response, handler.mediaType);
  }

  /** Settles an asynchronous request, rendering failures, within the request timeout if one is set. */
  #bounded(
    pending: Promise<Outcome>,
    exchange: Exchange,
    path: string,
    response: EndpointResponse,
  ): Promise<Outcome> {
    const settled = pending.catch((error: unknown) => this.#fail(error, response, exchange, path));
    const limit = this.#settings.requestTimeout;
    if (limit === 0) return settled;
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<Outcome>((resolve) => {
      timer = setTimeout(() => {
        const error = new CallError(503, `${exchange.method} ${path} did not finish within ${limit} ms`);
        resolve(renderError(error, new EndpointResponse(), false));
      }, limit);
    });
    return Promise.race([settled, expired]).finally(() => clearTimeout(timer));
  }

  #fail(error: unknown, response: EndpointResponse, exchange: Exchange, path: string): Outcome {
    let outcome: Outcome;
    try {
      outcome = renderError(error, response, this.#settings.debug);
    } catch (renderFailure) {
      // A CallError body JSON cannot represent, say: report that rather than fail the request twice.
      outcome = unsendable(renderFailure);
    }
    if (outcome.status >= 500 && !isCallError(error)) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      this.#settings.log(`endpoints: ${exchange.method} ${path} failed: ${detail}`);
    }
    return outcome;
  }
}
