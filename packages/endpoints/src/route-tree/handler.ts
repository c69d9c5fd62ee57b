import { type BindingPlan, planBinding } from '../binding/bind.js';
import { readSignature, type Signature } from '../binding/signature.js';
import { type ControllerClass, handlerMethodNames, overridesHooks } from '../controller.js';
import { EndpointsError } from '../errors.js';
import { withCors } from '../extras/cors.js';
import { type DecoratorHooks, type HandlerFunction, peelLayers } from '../extras/decorate.js';
import { withTrace } from '../extras/trace.js';

/** One routable method, with everything a request needs precomputed at load. */
export interface Handler {
  readonly Class: ControllerClass;
  readonly method: string;
  /** The method as the class declares it, decorators included (reflection reads its wrappers). */
  readonly fn: HandlerFunction;
  /** Decorator layers around the method, outermost first; their `before` hooks run before binding. */
  readonly layers: readonly DecoratorHooks[];
  /** What runs once the layers' `before` hooks passed and the arguments are bound. */
  readonly target: HandlerFunction;
  readonly plan: BindingPlan;
  /** Media type implied by the class name's extension (`Foo_xml`), if any. */
  readonly mediaType: string | undefined;
  /** Whether the class adds a path segment to its module's (false for `Default`). */
  readonly ownSegment: boolean;
  /** No decorators and no overridden lifecycle hooks: dispatch may bind and call directly. */
  readonly plain: boolean;
  /** For reflection (routes, OpenAPI) only: the class has CORS on. Dispatch never reads it. */
  readonly cors: boolean;
  /** For reflection only: the CORS preflight added at load, not a method of the class. */
  readonly preflight: boolean;
}

/** Upper-case handler methods of a class, own or inherited, nearest definition first. */
function handlerMethods(Class: ControllerClass): Map<string, HandlerFunction> {
  const prototype = Class.prototype as unknown as Record<string, HandlerFunction>;
  return new Map(handlerMethodNames(prototype).map((name) => [name, prototype[name] as HandlerFunction]));
}

/**
 * The handlers of one controller class, keyed by HTTP method. `label` names the class in binding
 * errors and startup errors (`Foo.GET`, `users.ts#Foo`).
 */
export function classHandlers(
  Class: ControllerClass,
  exportName: string,
  where: string,
  mediaType: string | undefined,
): Map<string, Handler> {
  const handlers = new Map<string, Handler>();
  const own = handlerMethods(Class);
  const cors = Boolean(Class.cors);
  const hooked = overridesHooks(Class);
  const methods = withCors(Class.cors, withTrace(Class.trace, own));
  const signatures = new Map<string, Signature>();
  for (const [method, fn] of methods) {
    signatures.set(method, readSignature(fn, `${exportName}.${method} in ${where}`));
  }
  checkTypes(Class.types, signatures, `${exportName} in ${where}`);
  for (const [method, fn] of methods) {
    const label = `${exportName}.${method}`;
    const signature = signatures.get(method) as Signature;
    const plan = planBinding(label, signature, Class.types?.[method]);
    const { layers, target } = peelLayers(fn);
    handlers.set(method, {
      Class,
      method,
      fn,
      layers,
      target,
      plan,
      mediaType,
      ownSegment: exportName !== 'Default',
      plain: layers.length === 0 && !hooked,
      cors,
      preflight: method === 'OPTIONS' && !own.has(method),
    });
  }
  return handlers;
}

function parameterNames(signature: Signature): string[] {
  const names = signature.positionals.flatMap((param) => (param.name === null ? [] : [param.name]));
  return [...names, ...(signature.keywords?.names.keys() ?? [])];
}

/**
 * `static types` must name HTTP methods of the class and parameters of those methods: a typo would
 * otherwise turn validation off without a word. A method collecting unknown keywords (`...rest` in
 * its keyword object) accepts a cast for any name.
 */
function checkTypes(table: unknown, signatures: ReadonlyMap<string, Signature>, where: string): void {
  if (table === undefined) return;
  if (typeof table !== 'object' || table === null) {
    throw new EndpointsError(
      'INVALID_TYPES',
      `${where}: static types must be an object keyed by HTTP method`,
    );
  }
  for (const [method, casts] of Object.entries(table)) {
    const signature = signatures.get(method);
    if (signature === undefined) {
      throw new EndpointsError(
        'INVALID_TYPES',
        `${where}: static types names '${method}', which is not an HTTP method of the class (it has ${[...signatures.keys()].join(', ') || 'none'})`,
      );
    }
    if (typeof casts !== 'object' || casts === null) {
      throw new EndpointsError(
        'INVALID_TYPES',
        `${where}: static types.${method} must be an object keyed by parameter`,
      );
    }
    if (signature.keywords?.rest) continue;
    const names = parameterNames(signature);
    for (const name of Object.keys(casts)) {
      if (names.includes(name)) continue;
      throw new EndpointsError(
        'INVALID_TYPES',
        `${where}: static types.${method} names '${name}', which is not a parameter of ${method} (it has ${names.join(', ') || 'none'})`,
      );
    }
  }
}
