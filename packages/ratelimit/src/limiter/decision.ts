import type { RuleStats } from '../stats/store.js';

/**
 * The near-limit threshold: `floor(float32(limit) * float32(ratio))`, computed in float32 like
 * the reference so that e.g. 8 * 0.8 gives 6.
 */
export function nearLimitThreshold(limit: number, ratio: number): number {
  return Math.floor(Math.fround(Math.fround(limit) * Math.fround(ratio)));
}

/**
 * Applies one counter result to the rule's stats and returns the remaining count, or -1 when
 * the hit is over the limit. `after` is the counter after adding `addend`.
 */
export function applyCounterResult(
  stats: RuleStats,
  limit: number,
  nearThreshold: number,
  after: number,
  addend: number,
): number {
  const before = after - addend;
  if (after > limit) {
    if (before >= limit) stats.overLimit.inc(addend);
    else {
      stats.overLimit.inc(after - limit);
      stats.nearLimit.inc(limit - Math.max(nearThreshold, before));
    }
    return -1;
  }
  if (after > nearThreshold) stats.nearLimit.inc(before >= nearThreshold ? addend : after - nearThreshold);
  stats.withinLimit.inc(addend);
  return limit - after;
}

/** What shadow_mode counts when it turns an over-limit result into OK. */
export function shadowedHits(limit: number, after: number, addend: number, fromLocalCache: boolean): number {
  return fromLocalCache || after - addend >= limit ? addend : after - limit;
}
