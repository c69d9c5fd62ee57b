/**
 * Unix time in milliseconds: the one clock of the service and the in-process library. The
 * limiter reads it once per request for fixed windows (whole seconds of it), the memory store
 * for sliding windows and token buckets (by the millisecond) and for expiry, the local
 * over-limit cache for its entries. Injected, so tests move it by hand.
 */
export type Clock = () => number;

export const systemClock: Clock = Date.now;

/** The whole second `nowMs` falls in: fixed windows and expiry times count in these. */
export function secondOf(nowMs: number): number {
  return Math.floor(nowMs / 1000);
}
