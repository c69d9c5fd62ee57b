import { newKeywords } from './binding/bind.js';
import { Deadlines } from './deadlines.js';
import { CallError } from './errors.js';
import { type BodyLimits, type ParsedBody, parseBody } from './http/body.js';
import { RequestContext } from './http/context.js';
import type { Exchange } from './http/exchange.js';
import { type Outcome, PendingOutcome } from './http/outcome.js';
import { parseSearch } from './http/query.js';
import { renderError, renderValue, unsendable } from './http/render.js';
import { NO_KEYWORDS } from './http/request.js';
import { EndpointResponse } from './http/response.js';
import { assignHandler, bindRequest } from './lifecycle.js';
import type { Handler } from './route-tree/handler.js';
import { type RouteNode, walk } from './route-tree/tree.js';
import type { Settings } from './settings.js';
import { isThenable } from './settle.js';
import type { ResponseCheck } from './validation/responses.js';

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

/**
 * The request's journey, shared by the Node and fetch interfaces: route, read the body, bind, call,
 * render. One RequestContext carries the request's state throughout. The journey stays synchronous
 * for requests without a body whose handler returns a plain value, which is the hot path.
 */
export class Dispatcher {
  readonly #root: RouteNode;
  readonly #settings: Settings;
  readonly #bodyLimits: BodyLimits;
  /** Request timeouts; null when `requestTimeout` is 0 (off). */
  readonly #deadlines: Deadlines | null;
  /** The response check of `responseValidation`; null when it is off (the default). */
  readonly #check: ResponseCheck | null;

  constructor(root: RouteNode, settings: Settings, check: ResponseCheck | null = null) {
    this.#root = root;
    this.#settings = settings;
    this.#check = check;
    this.#deadlines = settings.requestTimeout === 0 ? null : new Deadlines(settings.requestTimeout);
    this.#bodyLimits = {
      positionals: settings.positionalLimit,
      parts: settings.multipartParts,
      fieldBytes: settings.multipartFieldLimit,
    };
  }

  dispatch(exchange: Exchange): Outcome | PendingOutcome {
    const context = new RequestContext(exchange);
    const request = context.request;
    try {
      const segments = splitPath(request.path);
      const node = walk(this.#root, segments);
      const handler = this.#select(node, request.method);
      if (handler === undefined) return this.#unrouted(node, segments.length > node.depth, context);
      request.routed(segments, node.depth, handler.ownSegment ? node.depth - 1 : node.depth);
      request.positionals = node.depth === 0 ? segments : segments.slice(node.depth);
      if (request.search !== '') request.keywords = parseSearch(request.search, handler.plan.knownNames);
      if (exchange.hasBody()) return this.#withBody(handler, context);
      const outcome = this.#call(handler, context);
      return outcome instanceof Promise ? this.#settle(outcome, context) : outcome;
    } catch (error) {
      return this.#fail(error, context);
    }
  }

  /** The handler a request for `method` and `path` (no query string) would run, if any. */
  handlerFor(method: string, path: string): Handler | undefined {
    try {
      return this.#select(walk(this.#root, splitPath(path)), method);
    } catch {
      return undefined;
    }
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
  #unrouted(node: RouteNode, leftover: boolean, context: RequestContext): Outcome {
    const { method, path } = context.request;
    const error = leftover
      ? new CallError(404, `${method} ${path} not found`)
      : new CallError(501, `${method} ${path} not implemented`, {
          headers: node.allow ? { allow: node.allow } : undefined,
        });
    return renderError(error, context.response, false);
  }

  /**
   * Reads and parses the body, then calls the handler. The body arrives through callbacks, so a
   * handler that answers in the tick the body ends has its outcome delivered in that tick; only
   * multipart parsing or an async handler adds a step.
   */
  #withBody(handler: Handler, context: RequestContext): PendingOutcome {
    return this.#later(context, (finish, fail) => {
      const exchange = context.exchange;
      exchange.readBody(
        this.#settings.bodyLimit,
        (bytes) => {
          try {
            const body = parseBody(bytes, exchange.header('content-type'), this.#bodyLimits);
            const outcome =
              body instanceof Promise
                ? body.then((parsed) => this.#callWithBody(handler, context, parsed))
                : this.#callWithBody(handler, context, body);
            if (outcome instanceof Promise) outcome.then(finish, fail);
            else finish(outcome);
          } catch (error) {
            fail(error);
          }
        },
        fail,
      );
    });
  }

  /** The body's positionals follow the path's, and its fields override the query's. */
  #callWithBody(handler: Handler, context: RequestContext, body: ParsedBody): Outcome | Promise<Outcome> {
    const request = context.request;
    if (body.positionals.length > 0) request.positionals = request.positionals.concat(body.positionals);
    if (body.keywords !== null) {
      // A JSON object's keywords are already a copy of their own, which the request may keep.
      request.keywords =
        request.keywords === NO_KEYWORDS && body.keywords !== body.value
          ? body.keywords
          : Object.assign(newKeywords(), request.keywords, body.keywords);
    }
    request.body = body.value;
    return this.#call(handler, context);
  }

  /**
   * Runs the handler on a fresh controller and renders its value. A plain handler (no decorators, no
   * overridden hooks) is bound and called directly; any other goes through `controller.handle()`,
   * the documented lifecycle: decorators' `before` hooks, binding, the handler, `after` hooks.
   */
  #call(handler: Handler, context: RequestContext): Outcome | Promise<Outcome> {
    const { request, response } = context;
    // The plain path binds as the default getMethodParams does (the same bindRequest) but skips the
    // lifecycle's closures and hook calls. `npx tsx bench/plain-path.ts`, four runs on 2026-11-27
    // (load 7-10 on 2 cores), CPU per request plain against lifecycle: GET / 435-466 ns against
    // 471-495 ns (ratio 1.05-1.11), /users/42/posts/7 1.04-1.11, /search 1.00-1.07. That is 20-90 ns,
    // up to a tenth of the framework's own cost, for four lines.
    if (handler.plain) {
      const args = bindRequest(handler.plan, request);
      if (args instanceof Promise) return args.then((bound) => this.#invoke(handler, context, bound));
      return this.#invoke(handler, context, args);
    }
    const controller = new handler.Class(request, response);
    assignHandler(controller, handler);
    return this.#render(controller.handle(), handler, context);
  }

  #invoke(handler: Handler, context: RequestContext, args: unknown[]): Outcome | Promise<Outcome> {
    const controller = new handler.Class(context.request, context.response);
    return this.#render(handler.target.apply(controller, args), handler, context);
  }

  #render(body: unknown, handler: Handler, context: RequestContext): Outcome | Promise<Outcome> {
    const check = this.#check;
    if (isThenable(body)) {
      return Promise.resolve(body).then((value) => {
        const outcome = renderValue(value, context.response, handler.mediaType);
        return check === null ? outcome : check(outcome, handler, context.request);
      });
    }
    const outcome = renderValue(body, context.response, handler.mediaType);
    return check === null ? outcome : check(outcome, handler, context.request);
  }

  /** An async handler's outcome, failures rendered. */
  #settle(pending: Promise<Outcome>, context: RequestContext): PendingOutcome {
    return this.#later(context, (finish, fail) => {
      pending.then(finish, fail);
    });
  }

  /**
   * An outcome that `run` finishes later, within the request timeout if one is set: at the
   * timeout the 503 goes out, and a body still arriving is abandoned, so the connection closes
   * after it. A failure is rendered (and a 5xx logged) even after the timeout has answered.
   */
  #later(
    context: RequestContext,
    run: (finish: (outcome: Outcome) => void, fail: (error: unknown) => void) => void,
  ): PendingOutcome {
    const later = new PendingOutcome();
    const deadlines = this.#deadlines;
    const deadline = deadlines?.start(
      () => later.resolve(this.#timedOut(context)),
      !context.exchange.onConnection,
    );
    const finish = (outcome: Outcome) => {
      if (deadline !== undefined) deadlines?.settle(deadline);
      later.resolve(outcome);
    };
    run(finish, (error) => finish(this.#fail(error, context)));
    return later;
  }

  /** The 503 of a request past its timeout; a body still arriving is abandoned. */
  #timedOut(context: RequestContext): Outcome {
    const { method, path } = context.request;
    const message = `${method} ${path} did not finish within ${this.#settings.requestTimeout} ms`;
    context.exchange.abandonBody();
    this.#settings.log(`endpoints: ${message}`);
    return renderError(new CallError(503, message), new EndpointResponse(), false);
  }

  /** Renders a thrown value; any 5xx answer, a CallError's included, is logged with its stack. */
  #fail(error: unknown, context: RequestContext): Outcome {
    let outcome: Outcome;
    try {
      outcome = renderError(error, context.response, this.#settings.debug);
    } catch (renderFailure) {
      // A CallError body JSON cannot represent, say: report that rather than fail the request twice.
      outcome = unsendable(renderFailure);
    }
    if (outcome.status >= 500) {
      const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
      const { method, path } = context.request;
      this.#settings.log(`endpoints: ${method} ${path} failed: ${detail}`);
    }
    return outcome;
  }
}
