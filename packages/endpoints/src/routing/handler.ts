import { type BindingPlan, planBinding } from '../binding/bind.js';
import { readSignature } from '../binding/signature.js';
import type { ControllerClass } from '../controller.js';
import { type CorsPolicy, corsPolicy } from '../extras/cors.js';
import { isHandlerName } from '../naming.js';

/** One routable method, with everything a request needs precomputed at load. */
export interface Handler {
  readonly Class: ControllerClass;
  readonly method: string;
  readonly fn: (...args: unknown[]) => unknown;
  readonly plan: BindingPlan;
  readonly cors: CorsPolicy | null;
  /** Media type implied by the class name's extension (`Foo_xml`), if any. */
  readonly mediaType: string | undefined;
  /** The CORS preflight the framework answers for a CORS class without its own OPTIONS. */
  readonly preflight: boolean;
}

/** Upper-case handler methods of a class, own or inherited, nearest definition first. */
function handlerMethods(Class: ControllerClass): Map<string, (...args: unknown[]) => unknown> {
  const methods = new Map<string, (...args: unknown[]) => unknown>();
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
  const cors = corsPolicy(Class.cors);
  const handlers = new Map<string, Handler>();
  for (const [method, fn] of handlerMethods(Class)) {
    const label = `${exportName}.${method}`;
    const signature = readSignature(fn, `${label} in ${where}`);
    const plan = planBinding(label, signature, Class.types?.[method]);
    handlers.set(method, { Class, method, fn, plan, cors, mediaType, preflight: false });
  }
  if (cors && !handlers.has('OPTIONS')) {
    const plan = planBinding(
      `${exportName}.OPTIONS`,
      { positionals: [], rest: true, keywords: null },
      undefined,
    );
    const fn = () => undefined;
    handlers.set('OPTIONS', { Class, method: 'OPTIONS', fn, plan, cors, mediaType, preflight: true });
  }
  return handlers;
}
