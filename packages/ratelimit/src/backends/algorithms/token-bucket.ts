/**
 * An exact token bucket, in whole numbers. Time is in milliseconds, and tokens are counted in
 * units of 1 / windowMs, so that a refill of `rate` tokens per `windowMs` drains `rate` units
 * per millisecond and one token costs `windowMs` units: no fraction appears anywhere. The state
 * is the bucket's debt (units missing from a full bucket) at `updatedAt`; with the theoretical
 * arrival time of GCRA, `debt = (TAT − updatedAt) × rate`. An absent state is a full bucket.
 */
export interface TokenBucketState {
  debt: number;
  updatedAt: number;
}

export interface TokenBucketParams {
  /** The refill period, unit × unit_multiplier, in ms; also the cost of one token in units. */
  readonly windowMs: number;
  /** Tokens refilled per period (requests_per_unit). */
  readonly rate: number;
  /** Bucket capacity in tokens. */
  readonly burst: number;
}

export interface TokenBucketAnswer {
  /**
   * Tokens in use after the hit, counting the hit even when it is refused: `ceil(debt / W) +
   * addend`. The hit is allowed exactly when this is at most `burst`, and `burst − after` is then
   * the whole number of tokens left, so the fixed window's decision arithmetic applies with
   * `burst` as the limit.
   */
  readonly after: number;
  /** Milliseconds until the bucket is full again (0 when it is full). */
  readonly resetMs: number;
}

/** Refills `state` up to `nowMs`. A clock that went back refills nothing. */
export function refillTokenBucket(state: TokenBucketState, nowMs: number, rate: number): void {
  if (nowMs <= state.updatedAt) return;
  const drained = (nowMs - state.updatedAt) * rate;
  state.debt = drained >= state.debt ? 0 : state.debt - drained;
  state.updatedAt = nowMs;
}

/**
 * Takes `addend` tokens from a refilled `state` when they are all there and `take` is set
 * (a refused hit takes none), and says what the hit gives.
 */
export function tokenBucketHit(
  state: TokenBucketState,
  params: TokenBucketParams,
  addend: number,
  take: boolean,
): TokenBucketAnswer {
  const { windowMs, rate, burst } = params;
  const after = Math.ceil(state.debt / windowMs) + addend;
  if (take && after <= burst) state.debt += addend * windowMs;
  return { after, resetMs: rate > 0 ? Math.ceil(state.debt / rate) : 0 };
}
