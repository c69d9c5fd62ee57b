/**
 * One sliding-window counter: the count of the window that starts at `start` (ms since the
 * epoch, a multiple of the window length) and the count of the window before it.
 */
export interface SlidingWindowState {
  start: number;
  current: number;
  previous: number;
}

/** What one hit on a sliding window gives. */
export interface SlidingWindowAnswer {
  /**
   * The estimate after the hit, rounded up: `current + ceil(previous × (W − e) / W)`. A limit L
   * is kept when this is at most L (for a whole L, `ceil(x) <= L` exactly when `x <= L`), and
   * `L − after` is the floor of L minus the estimate, so the fixed window's decision arithmetic
   * applies to it unchanged.
   */
  readonly after: number;
  /** Milliseconds to the end of the current window. */
  readonly resetMs: number;
}

/** Start of the epoch-aligned window of `windowMs` that holds `nowMs`. */
export function slidingWindowStart(nowMs: number, windowMs: number): number {
  return nowMs - (nowMs % windowMs);
}

/**
 * Moves `state` to the window holding `nowMs`: the current count becomes the previous one when
 * the window just ended, and both are dropped when it ended longer ago.
 */
export function rollSlidingWindow(state: SlidingWindowState, nowMs: number, windowMs: number): void {
  const start = slidingWindowStart(nowMs, windowMs);
  if (state.start === start) return;
  state.previous = state.start === start - windowMs ? state.current : 0;
  state.current = 0;
  state.start = start;
}

/**
 * The two-window estimate `P × (1 − e/W) + C` for a hit of `addend` on a rolled `state`, with
 * the hit counted (`count`) or only looked at. Hits are counted whatever the verdict, as the
 * fixed window counts them (the reference increments before it compares).
 */
export function slidingWindowHit(
  state: SlidingWindowState,
  nowMs: number,
  windowMs: number,
  addend: number,
  count: boolean,
): SlidingWindowAnswer {
  const elapsed = nowMs - state.start;
  // Whole numbers below 2^53: the quotient rounds to the nearest double, never across a whole number.
  const carried = Math.ceil((state.previous * (windowMs - elapsed)) / windowMs);
  if (count) state.current += addend;
  const current = count ? state.current : state.current + addend;
  return { after: current + carried, resetMs: windowMs - elapsed };
}

/**
 * How long a counter must be kept after `nowMs`: until its window and the next one are over,
 * when it no longer weighs in any estimate.
 */
export function slidingWindowTtlMs(state: SlidingWindowState, nowMs: number, windowMs: number): number {
  return state.start + 2 * windowMs - nowMs;
}
