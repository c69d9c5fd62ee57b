import type { Controller } from './controller.js'; // type-only: the hooks name the controller they are given
import { attempt, then } from './settle.js';

/**
 * The hook runner: what one decorator does around a handler. A leaf below both the decorators that
 * make layers (extras/decorate.ts) and the lifecycle that runs them (lifecycle.ts), as fastify's
 * lib/hooks.js and hono's compose.ts sit below their routers and plugins.
 */

// biome-ignore lint/suspicious/noExplicitAny: handlers take any arguments; binding checks them at load.
export type HandlerFunction = (this: Controller, ...args: any[]) => unknown;

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
export interface DecoratorHooks {
  /** Names the decorator in the `<name> check failed` error of a `before` that returned false. */
  readonly name?: string;
  before?(controller: Controller): unknown;
  refuse?(controller: Controller, error: unknown): unknown;
  after?(controller: Controller, body: unknown): unknown;
  error?(controller: Controller, error: unknown): unknown;
}

/** One decorator's hooks around `next`, in the documented order. */
export function runLayer(hooks: DecoratorHooks, controller: Controller, next: () => unknown): unknown {
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
