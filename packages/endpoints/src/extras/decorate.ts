import { keepSignature } from '../binding/signature.js';
import type { Controller } from '../controller.js';

// biome-ignore lint/suspicious/noExplicitAny: handlers take any arguments; binding checks them at load.
export type HandlerFunction = (this: Controller, ...args: any[]) => unknown;

/** A step run before the handler; it may throw a CallError to answer instead. */
export type BeforeHandler = (controller: Controller) => void | Promise<void>;

/**
 * Makes a handler decorator that works both as a TypeScript standard decorator (`@authBasic(check)`)
 * and as a wrapper (`GET = authBasic(check)(function () {…})`). The wrapper keeps the original's
 * parameter list for binding.
 */
export function runBefore(step: BeforeHandler) {
  return <F extends HandlerFunction>(handler: F, _context?: ClassMethodDecoratorContext): F => {
    const wrapped = function (this: Controller, ...args: unknown[]) {
      const ready = step(this);
      if (ready instanceof Promise) return ready.then(() => handler.apply(this, args));
      return handler.apply(this, args);
    };
    return keepSignature(wrapped, handler) as unknown as F;
  };
}
