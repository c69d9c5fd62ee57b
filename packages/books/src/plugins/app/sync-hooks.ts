import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction } from 'fastify';

/** A check of a request that refuses it by throwing (an AppError, answered as problem details). */
export type RequestCheck = (request: FastifyRequest, reply: FastifyReply) => void;

/**
 * One synchronous hook (onRequest, preValidation) that runs `checks` in order and stops at the first
 * that throws. Hooks are dispatched one by one, and an async one costs a promise and a microtask turn
 * per request even when it has nothing to wait for; checks that never wait are grouped here instead.
 */
export function checksHook(...checks: RequestCheck[]) {
  return function runChecks(
    request: FastifyRequest,
    reply: FastifyReply,
    done: HookHandlerDoneFunction,
  ): void {
    try {
      for (const check of checks) check(request, reply);
    } catch (error) {
      done(error as Error);
      return;
    }
    done();
  };
}
