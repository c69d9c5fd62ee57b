/**
 * Sequencing that stays synchronous until something is actually asynchronous, so plain handlers
 * answer in the same tick while sync and async hooks mix freely.
 */

export function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as { then?: unknown } | null)?.then === 'function';
}

/** `next(value)`, after `value` settles if it is a promise. */
export function then(value: unknown, next: (settled: unknown) => unknown): unknown {
  return isThenable(value) ? Promise.resolve(value).then(next) : next(value);
}

/** `run()`, with `recover` for a throw or a rejection. */
export function attempt(run: () => unknown, recover: (error: unknown) => unknown): unknown {
  let result: unknown;
  try {
    result = run();
  } catch (error) {
    return recover(error);
  }
  return isThenable(result) ? Promise.resolve(result).catch(recover) : result;
}
