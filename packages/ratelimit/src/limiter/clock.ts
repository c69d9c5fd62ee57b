/** Unix time in whole seconds. Injected everywhere a window is computed, so tests control it. */
export type Clock = () => number;

export const systemClock: Clock = () => Math.floor(Date.now() / 1000);

/**
 * Unix time in milliseconds: the limiter reads it once per request, for fixed windows (in whole
 * seconds) and for the sliding windows and token buckets of the memory store (in ms).
 */
export type MillisecondClock = () => number;

export const systemMillisecondClock: MillisecondClock = Date.now;

/** A clock in seconds (tests move one by hand, fractions allowed) read in milliseconds. */
export function inMilliseconds(clock: Clock): MillisecondClock {
  return () => Math.round(clock() * 1000);
}
