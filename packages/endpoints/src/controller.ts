import type { Keywords } from './binding/bind.js';
import type { CastTable } from './binding/casts.js';
import type { CorsOption } from './cors-settings.js';
import type { EndpointRequest } from './http/request.js';
import type { EndpointResponse } from './http/response.js';
import { bindRequest, handlerOf, runLifecycle } from './lifecycle.js';
import { isHandlerName } from './naming.js';

/** What `getRequestParams` returns: the request's arguments before they are bound. */
export interface RequestParams {
  readonly positionals: readonly unknown[];
  readonly keywords: Readonly<Keywords>;
}

const CONTROLLER = Symbol.for('@platform/endpoints.Controller');

/**
 * Base class of every routable controller. Exported subclasses of a controller module are routed by
 * their export name; their upper-case methods (`GET`, `POST`, …, `ANY`) are the handlers.
 *
 * Class options:
 * - `static private = true` keeps the class out of routing (so do `_Foo` and `FooController` names);
 * - `static cors = true | { origins, credentials, maxAge }` turns on CORS and the preflight;
 * - `static types = { GET: { page: Number } }` casts or validates arguments per method;
 * - `static trace = true` answers TRACE with the request line and headers (the reference's TRACEMixin).
 *
 * Lifecycle hooks an application may override (the reference's `handle`, `get_request_params`,
 * `get_method_params`, `get_response_body`, `handle_error`). `handle()` runs a request:
 * 1. `getRequestParams()` → the positionals and keywords (stored on `this.request`);
 * 2. the decorators' `before` hooks, outermost first (auth, CORS, rate limits: before binding);
 * 3. `getMethodParams()` → the handler's arguments (binding, casts and validation: 404/400);
 * 4. the handler, then the decorators' `after` hooks, innermost first;
 * 5. on a failure in 1-4, `handleError(error)`: throw to answer with an error (the default), or
 *    return a value to answer with instead;
 * 6. `getResponseBody(body)` → the value that is rendered.
 * A class that overrides none of them, with undecorated handlers, takes a faster path that does
 * the same.
 */
export class Controller {
  static readonly [CONTROLLER] = true;
  static private?: boolean;
  static cors?: CorsOption;
  static types?: CastTable;
  static trace?: boolean;

  readonly request: EndpointRequest;
  readonly response: EndpointResponse;

  constructor(request: EndpointRequest, response: EndpointResponse) {
    this.request = request;
    this.response = response;
  }

  /** Runs the whole lifecycle of the request and returns the value to render. */
  handle(): unknown {
    return runLifecycle(this, handlerOf(this));
  }

  /** The request's arguments before binding: path and body positionals, query and body keywords. */
  getRequestParams(): RequestParams | Promise<RequestParams> {
    return { positionals: this.request.positionals, keywords: this.request.keywords };
  }

  /** The handler's argument list from `this.request.positionals` and `keywords` (404/400 on a mismatch). */
  getMethodParams(): unknown[] | Promise<unknown[]> {
    return bindRequest(handlerOf(this).plan, this.request);
  }

  /** The value that is rendered, from what the handler (or `handleError`) returned. */
  getResponseBody(body: unknown): unknown {
    return body;
  }

  /** A failure of the request's lifecycle: throw to answer with an error, or return a value to send. */
  handleError(error: unknown): unknown {
    throw error;
  }
}

/** The hooks whose override sends a class down the full lifecycle. */
const HOOKS = ['handle', 'getRequestParams', 'getMethodParams', 'getResponseBody', 'handleError'] as const;

/**
 * True when a controller class overrides a lifecycle hook: some class between it and the root
 * Controller (of whichever copy of this package it extends) defines one.
 */
export function overridesHooks(Class: ControllerClass): boolean {
  for (let proto = Class.prototype; Object.getPrototypeOf(proto) !== Object.prototype; ) {
    if (HOOKS.some((name) => Object.hasOwn(proto, name))) return true;
    proto = Object.getPrototypeOf(proto);
  }
  return false;
}

/** Names of the upper-case handler methods on a prototype, own or inherited. */
export function handlerMethodNames(prototype: object): string[] {
  const names: string[] = [];
  for (let proto = prototype; proto && proto !== Object.prototype; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (names.includes(name) || !isHandlerName(name)) continue;
      if (typeof Object.getOwnPropertyDescriptor(proto, name)?.value === 'function') names.push(name);
    }
  }
  return names;
}

export type ControllerClass = (new (
  request: EndpointRequest,
  response: EndpointResponse,
) => Controller) & {
  readonly private?: boolean;
  readonly cors?: CorsOption;
  readonly types?: CastTable;
  readonly trace?: boolean;
};

/** True for subclasses of Controller, including those of another copy of this package. */
export function isControllerClass(value: unknown): value is ControllerClass {
  return (
    typeof value === 'function' &&
    (value as unknown as Record<symbol, unknown>)[CONTROLLER] === true &&
    value !== Controller
  );
}
