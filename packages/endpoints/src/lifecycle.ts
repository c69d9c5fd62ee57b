import type { Controller } from './controller.js';
import { runLayer } from './extras/decorate.js';
import type { Handler } from './routing/handler.js';
import { attempt, then } from './settle.js';

// Registered, so a controller extending another copy of this package finds its handler too.
const HANDLER = Symbol.for('@platform/endpoints.handler');

/** Gives a controller the handler it serves, before its lifecycle runs. */
export function assignHandler(controller: Controller, handler: Handler): void {
  (controller as unknown as Record<symbol, Handler>)[HANDLER] = handler;
}

export function handlerOf(controller: Controller): Handler {
  const handler = (controller as unknown as Record<symbol, Handler | undefined>)[HANDLER];
  if (handler === undefined) {
    throw new TypeError('this controller is not serving a request (handle() runs only from dispatch)');
  }
  return handler;
}

/** The documented lifecycle of `Controller.handle` (see Controller). */
export function runLifecycle(controller: Controller, handler: Handler): unknown {
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
function throughLayers(controller: Controller, handler: Handler, index: number): unknown {
  const layer = handler.layers[index];
  if (layer === undefined) {
    return then(controller.getMethodParams(), (args) => handler.target.apply(controller, args as unknown[]));
  }
  return runLayer(layer, controller, () => throughLayers(controller, handler, index + 1));
}
