import { type BindingPlan, bindArguments, type Keywords } from './binding/bind.js';
import { type EndpointRequest, NO_KEYWORDS } from './http/request.js';
import { attempt, then } from './settle.js';

// The request lifecycle and the hook runner, below both the Controller class and the decorators (as
// fastify's hook runner and hono's compose sit below their routers): each names only the narrow shapes
// it runs, so neither the class nor a decorator is imported here.

/**
 * The hooks of one decorator around a handler, after the reference's ControllerDecorator. In a
 * request they run in this order, outermost decorator first:
 * 1. `before(controller)`, before the handler's arguments are bound (so an auth check answers 401
 *    even for a request whose arguments are wrong). A throw, or a return of exactly `false`, refuses
 *    the request; the failure goes to `refuse`.
 * 2. `refuse(controller, error)`: turns a failure of `before` into the answer; it must throw (the
 *    default rethrows). An auth decorator throws a 401, the rate limit a 429.
 * 3. the next decorator, then the arguments are bound and the handler runs;
 * 4. `after(controller, body)`: the value to send instead of `body` (default: `body`);
 * 5. `error(controller, error)`, for a failure in 3 or 4: rethrow it (the default), throw another,
 *    or return a value to answer with instead.
 */
export interface LayerHooks<C> {
  /** Names the decorator in the `<name> check failed` error of a `before` that returned false. */
  readonly name?: string;
  before?(controller: C): unknown;
  refuse?(controller: C, error: unknown): unknown;
  after?(controller: C, body: unknown): unknown;
  error?(controller: C, error: unknown): unknown;
}

/** What the lifecycle asks of a controller: its request's arguments and the hooks a class may override. */
export interface LifecycleController {
  readonly request: Pick<EndpointRequest, 'positionals' | 'keywords'>;
  getRequestParams(): unknown;
  getMethodParams(): unknown;
  getResponseBody(body: unknown): unknown;
  handleError(error: unknown): unknown;
}

/** What the lifecycle asks of the handler a controller serves: its layers, what they wrap, its binding. */
export interface ServedHandler<C> {
  /** Decorator layers around the method, outermost first; their `before` hooks run before binding. */
  readonly layers: readonly LayerHooks<C>[];
  /** What runs once the layers' `before` hooks passed and the arguments are bound. */
  // biome-ignore lint/suspicious/noExplicitAny: handlers take any arguments; binding checks them at load.
  readonly target: (this: C, ...args: any[]) => unknown;
  readonly plan: BindingPlan;
}

/**
 * The handler's argument list from the request's positionals and keywords (404/400 on a mismatch):
 * what `getMethodParams` returns by default, and what dispatch's plain path binds without a controller.
 */
export function bindRequest(
  plan: BindingPlan,
  request: Pick<EndpointRequest, 'positionals' | 'keywords'>,
): unknown[] | Promise<unknown[]> {
  const { positionals, keywords } = request;
  return bindArguments(
    plan,
    positionals as unknown[],
    keywords === NO_KEYWORDS ? null : (keywords as Keywords),
  );
}

// Registered, so a controller extending another copy of this package finds its handler too.
const HANDLER = Symbol.for('@platform/endpoints.handler');

/** Gives a controller the handler it serves, before its lifecycle runs. */
export function assignHandler<C extends object>(controller: C, handler: ServedHandler<C>): void {
  (controller as Record<symbol, ServedHandler<C>>)[HANDLER] = handler;
}

export function handlerOf<C extends object>(controller: C): ServedHandler<C> {
  const handler = (controller as Record<symbol, ServedHandler<C> | undefined>)[HANDLER];
  if (handler === undefined) {
    throw new TypeError('this controller is not serving a request (handle() runs only from dispatch)');
  }
  return handler;
}

/** One decorator's hooks around `next`, in the documented order. */
export function runLayer<C>(hooks: LayerHooks<C>, controller: C, next: () => unknown): unknown {
  const refuse = (error: unknown) => {
    if (hooks.refuse) return hooks.refuse(controller, error);
    throw error;
  };
  const admitted = hooks.before
    ? attempt(() => {
        const verdict = hooks.before?.(controller);
        return then(verdict, (settled) => {
          if (settled === false) throw new Error(`${hooks.name ?? 'decorator'} check failed`);
        });
      }, refuse)
    : undefined;
  return then(admitted, () =>
    attempt(
      () => then(next(), (body) => (hooks.after ? hooks.after(controller, body) : body)),
      (error) => {
        if (hooks.error) return hooks.error(controller, error);
        throw error;
      },
    ),
  );
}

/** The documented lifecycle of `Controller.handle` (see Controller). */
export function runLifecycle<C extends LifecycleController>(
  controller: C,
  handler: ServedHandler<C>,
): unknown {
  const request = controller.request;
  const body = attempt(
    () =>
      then(controller.getRequestParams(), (settled) => {
        const params = settled as Pick<EndpointRequest, 'positionals' | 'keywords'>;
        request.positionals = params.positionals;
        request.keywords = params.keywords;
        return throughLayers(controller, handler, 0);
      }),
    (error) => controller.handleError(error),
  );
  return then(body, (settled) => controller.getResponseBody(settled));
}

/** The decorator layers from `index` inward, then binding and the handler itself. */
function throughLayers<C extends LifecycleController>(
  controller: C,
  handler: ServedHandler<C>,
  index: number,
): unknown {
  const layer = handler.layers[index];
  if (layer === undefined) {
    return then(controller.getMethodParams(), (args) => handler.target.apply(controller, args as unknown[]));
  }
  return runLayer(layer, controller, () => throughLayers(controller, handler, index + 1));
}
