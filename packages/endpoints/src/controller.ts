import type { CastTable } from './binding/casts.js';
import type { CorsOption } from './extras/cors.js';
import type { EndpointRequest } from './http/request.js';
import type { EndpointResponse } from './http/response.js';

const CONTROLLER = Symbol.for('@platform/endpoints.Controller');

/**
 * Base class of every routable controller. Exported subclasses of a controller module are routed by
 * their export name; their upper-case methods (`GET`, `POST`, …, `ANY`) are the handlers.
 *
 * Class options:
 * - `static private = true` keeps the class out of routing (so do `_Foo` and `FooController` names);
 * - `static cors = true | { origins, credentials, maxAge }` turns on CORS and the preflight;
 * - `static types = { GET: { page: Number } }` casts or validates arguments per method.
 */
export class Controller {
  static readonly [CONTROLLER] = true;
  static private?: boolean;
  static cors?: CorsOption;
  static types?: CastTable;

  readonly request: EndpointRequest;
  readonly response: EndpointResponse;

  constructor(request: EndpointRequest, response: EndpointResponse) {
    this.request = request;
    this.response = response;
  }
}

export type ControllerClass = (new (
  request: EndpointRequest,
  response: EndpointResponse,
) => Controller) & {
  readonly private?: boolean;
  readonly cors?: CorsOption;
  readonly types?: CastTable;
};

/** True for subclasses of Controller, including those of another copy of this package. */
export function isControllerClass(value: unknown): value is ControllerClass {
  return (
    typeof value === 'function' &&
    (value as unknown as Record<symbol, unknown>)[CONTROLLER] === true &&
    value !== Controller
  );
}
