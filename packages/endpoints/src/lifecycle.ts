import type { BindingPlan } from './binding/bind.js';
import type { Controller } from './controller.js'; // type-only: the lifecycle runs the controller's hooks
import { type DecoratorHooks, type HandlerFunction, runLayer } from './hooks.js';
import { attempt, then } from './settle.js';

/** What the lifecycle needs of the handler it runs; routing's Handler record is one. */
export interface LifecycleHandler {
  /** Decorator layers, outermost first; their `before` hooks run before binding. */
  readonly layers: readonly DecoratorHooks[];
  /** What runs once the layers' `before` hooks passed and the arguments are bound. */
  readonly target: HandlerFunction;
  readonly plan: BindingPlan;
}

// Registered, so a controller extending another copy of this package finds its handler too.
const HANDLER = Symbol.for('@platform/endpoints.handler');

/** Gives a controller the handler it serves, before its lifecycle runs. */
export function assignHandler(controller: Controller, handler: LifecycleHandler): void {
  (controller as unknown as Record<symbol, LifecycleHandler>)[HANDLER] = handler;
}

export function handlerOf(controller: Controller): LifecycleHandler {
  const handler = (controller as unknown as Record<symbol, LifecycleHandler | undefined>)[HANDLER];
  if (handler === undefined) {
    throw new TypeError('this controller is not serving a request (handle() runs only from dispatch)');
  }
  return handler;
}

/** The documented lifecycle of `Controller.handle` (see Controller). */
export function runLifecycle(controller: Controller, handler: LifecycleHandler): unknown {
  const request = controller.request;
  const body = attempt(
    () =>
      then(controller.getRequestParams(), (settled) => {
        const params = settled as { positionals: readonly unknown[]; keywords: Record<string, unknown> };
        request.positionals = params.positionals;
        request.keywords = params.keywords;
        return throughLayers(controller, handler, 0);
      }),
    (error) => controller.handleError(error),
  );
  return then(body, (settled) => controller.getResponseBody(settled));
}

/** The decorator layers from `index` inward, then binding and the handler itself. */
function throughLayers(controller: Controller, handler: LifecycleHandler, index: number): unknown {
  const layer = handler.layers[index];
  if (layer === undefined) {
    return then(controller.getMethodParams(), (args) => handler.target.apply(controller, args as unknown[]));
  }
  return runLayer(layer, controller, () => throughLayers(controller, handler, index + 1));
}
