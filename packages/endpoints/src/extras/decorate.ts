import { keepSignature } from '../binding/signature.js';
import { type Controller, handlerMethodNames, isControllerClass } from '../controller.js';
import { type LayerHooks, runLayer } from '../lifecycle.js';
import { annotate, type HandlerNotes } from './annotations.js';

// biome-ignore lint/suspicious/noExplicitAny: handlers take any arguments; binding checks them at load.
export type HandlerFunction = (this: Controller, ...args: any[]) => unknown;

/** A decorator's hooks around a handler of a Controller; the order they run in is LayerHooks'. */
export type DecoratorHooks = LayerHooks<Controller>;

/**
 * A decorator that applies to a handler method or to a whole Controller class (then to each of its
 * HTTP methods, and the class stays routed), as a TypeScript standard decorator (`@dec`) or a plain
 * wrapper (`dec(function (id) {…})`, `dec(SomeController)`).
 */
export type Decorator = <T extends HandlerFunction | (abstract new (...args: never) => unknown)>(
  target: T,
  context?: ClassMethodDecoratorContext | ClassDecoratorContext,
) => T;

const LAYER = Symbol.for('@platform/endpoints.decoratorLayer');

interface Layer {
  readonly hooks: DecoratorHooks;
  readonly inner: HandlerFunction;
}

function layerOf(fn: HandlerFunction): Layer | undefined {
  return (fn as unknown as Record<symbol, Layer | undefined>)[LAYER];
}

/** Wraps one handler in a layer; called directly (`super.GET(x)`), the wrapper runs the hooks itself. */
function wrapHandler(hooks: DecoratorHooks, handler: HandlerFunction, notes?: HandlerNotes): HandlerFunction {
  const wrapped = function (this: Controller, ...args: unknown[]) {
    return runLayer(hooks, this, () => handler.apply(this, args));
  };
  Object.defineProperty(wrapped, LAYER, { value: { hooks, inner: handler } satisfies Layer });
  keepSignature(wrapped, handler);
  return notes ? annotate(wrapped, notes) : wrapped;
}

/**
 * Makes a decorator from hooks. `notes` tell the OpenAPI document what the decorator adds (an auth
 * scheme, the statuses it answers).
 */
export function decorate(hooks: DecoratorHooks, notes?: HandlerNotes): Decorator {
  return ((target: unknown, context?: { kind?: string }) => {
    if (context?.kind === 'class' || isControllerClass(target)) {
      const Class = target as { prototype: Record<string, HandlerFunction> };
      for (const name of handlerMethodNames(Class.prototype)) {
        Object.defineProperty(Class.prototype, name, {
          value: wrapHandler(hooks, Class.prototype[name] as HandlerFunction, notes),
          writable: true,
          configurable: true,
        });
      }
      return target;
    }
    if (typeof target !== 'function' || (context?.kind !== undefined && context.kind !== 'method')) {
      throw new TypeError(
        `${hooks.name ?? 'a decorator'} applies to a handler method or a Controller class, not to ${context?.kind ?? typeof target}`,
      );
    }
    return wrapHandler(hooks, target as HandlerFunction, notes);
  }) as Decorator;
}

/**
 * The decorator layers around a handler, outermost first, and the function they wrap: what the
 * dispatcher calls after running the layers' `before` hooks and binding the arguments. A wrapper
 * not made by `decorate` ends the peeling: it is called as it is.
 */
export function peelLayers(fn: HandlerFunction): { layers: DecoratorHooks[]; target: HandlerFunction } {
  const layers: DecoratorHooks[] = [];
  let target = fn;
  for (let layer = layerOf(target); layer; layer = layerOf(target)) {
    layers.push(layer.hooks);
    target = layer.inner;
  }
  return { layers, target };
}

/**
 * Base class for decorators with state, after the reference's ControllerDecorator: override
 * `before`, `refuse`, `after` or `error` (see DecoratorHooks for the order), then apply an instance
 * with `@new MyDecorator(options).decorator()`, or write a factory function that does.
 */
export class ControllerDecorator implements DecoratorHooks {
  get name(): string {
    return this.constructor.name;
  }

  /** The decorator that applies this instance's hooks; `notes` document what it adds. */
  decorator(notes?: HandlerNotes): Decorator {
    return decorate(this, notes);
  }
}

/** A step run before the handler; it may throw a CallError to answer instead. */
export type BeforeHandler = (controller: Controller) => unknown;

/** A decorator that runs `step` before the handler's arguments are bound (`decorate({ before: step })`). */
export function runBefore(step: BeforeHandler): Decorator {
  return decorate({ before: step });
}
