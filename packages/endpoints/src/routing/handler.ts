import { type BindingPlan, planBinding } from '../binding/bind.js';
import { readSignature } from '../binding/signature.js';
import type { ControllerClass } from '../controller.js';
import { withCors } from '../extras/cors.js';
import type { HandlerFunction } from '../extras/decorate.js';
import { isHandlerName } from '../naming.js';

/** One routable method, with everything a request needs precomputed at load. */
export interface Handler {
  readonly Class: ControllerClass;
  readonly method: string;
  readonly fn: HandlerFunction;
  readonly plan: BindingPlan;
  /** Media type implied by the class name's extension (`Foo_xml`), if any. */
  readonly mediaType: string | undefined;
  /** For reflection (routes, OpenAPI) only: the class has CORS on. Dispatch never reads it. */
  readonly cors: boolean;
  /** For reflection only: the CORS preflight added at load, not a method of the class. */
  readonly preflight: boolean;
}

/** Upper-case handler methods of a class, own or inherited, nearest definition first. */
function handlerMethods(Class: ControllerClass): Map<string, HandlerFunction> {
  const methods = new Map<string, HandlerFunction>();
  for (
    let proto = Class.prototype;
    proto && proto !== Object.prototype;
    proto = Object.getPrototypeOf(proto)
  ) {
    for (const name of Object.getOwnPropertyNames(proto)) {
      if (methods.has(name) || !isHandlerName(name)) continue;
      const descriptor = Object.getOwnPropertyDescriptor(proto, name);
      if (typeof descriptor?.value === 'function') methods.set(name, descriptor.value);
    }
  }
  return methods;
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
  for (const [method, fn] of withCors(Class.cors, own)) {
    const label = `${exportName}.${method}`;
    const signature = readSignature(fn, `${label} in ${where}`);
    const plan = planBinding(label, signature, Class.types?.[method]);
    handlers.set(method, { Class, method, fn, plan, mediaType, cors, preflight: !own.has(method) });
  }
  return handlers;
}
