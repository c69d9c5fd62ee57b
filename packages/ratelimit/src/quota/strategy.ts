import type { LimitMatch } from '../config/tree.js';
import { UNITS, type Unit } from '../protocol/units.js';

/** The units of envoy.type.v3.RateLimitUnit, which a RequestsPerTimeUnit strategy can name. */
export type StrategyUnit = 'SECOND' | 'MINUTE' | 'HOUR' | 'DAY' | 'MONTH' | 'YEAR';
const STRATEGY_UNITS: readonly StrategyUnit[] = ['SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR'];

/** envoy.type.v3.RateLimitStrategy: what one client is told to enforce for one bucket. */
export type Strategy =
  | { readonly kind: 'blanket'; readonly rule: 'ALLOW_ALL' | 'DENY_ALL' }
  | { readonly kind: 'requests_per_time_unit'; readonly requests: number; readonly unit: StrategyUnit }
  | {
      readonly kind: 'token_bucket';
      readonly maxTokens: number;
      readonly tokensPerFill: number;
      readonly fillIntervalMs: number;
    };

export const ALLOW_ALL: Strategy = { kind: 'blanket', rule: 'ALLOW_ALL' };
export const DENY_ALL: Strategy = { kind: 'blanket', rule: 'DENY_ALL' };

/**
 * What the config grants one bucket in all, before it is shared out among the clients reporting
 * it: a blanket rule (not shared), a number of requests per unit, or a token bucket's refill and
 * capacity.
 */
export type BucketQuota =
  | { readonly kind: 'blanket'; readonly strategy: Strategy }
  | {
      readonly kind: 'requests_per_time_unit';
      readonly requests: number;
      readonly unit: StrategyUnit;
      /** Seconds of `unit`, to turn a demand in requests per second into requests per unit. */
      readonly unitSeconds: number;
    }
  | {
      readonly kind: 'token_bucket';
      readonly tokensPerFill: number;
      readonly maxTokens: number;
      readonly fillIntervalMs: number;
    };

/**
 * The quota of the rule a bucket matched (see README, "Rate Limit Quota Service"):
 * - no rule, an `unlimited` rule, a rule in shadow mode, or SHADOW_MODE: ALLOW_ALL, as
 *   ShouldRateLimit lets such requests through;
 * - `requests_per_unit: 0`: DENY_ALL;
 * - token_bucket: a TokenBucket of the rule's burst, refill and refill period;
 * - fixed_window and sliding_window: RequestsPerTimeUnit.
 * A `rate_limits` list gives the quota of its tightest limit (fewest requests per second).
 */
export function quotaOf(match: LimitMatch | undefined, globalShadowMode: boolean): BucketQuota {
  const rule = match?.rule;
  if (!rule || rule.unlimited || rule.shadowMode || globalShadowMode || rule.limits.length === 0) {
    return { kind: 'blanket', strategy: ALLOW_ALL };
  }
  let tightest = rule.limits[0] as (typeof rule.limits)[number];
  for (const limit of rule.limits) {
    if (limit.requestsPerUnit / limit.windowSeconds < tightest.requestsPerUnit / tightest.windowSeconds) {
      tightest = limit;
    }
  }
  if (tightest.requestsPerUnit === 0) return { kind: 'blanket', strategy: DENY_ALL };
  if (tightest.algorithm === 'token_bucket') {
    return {
      kind: 'token_bucket',
      tokensPerFill: tightest.requestsPerUnit,
      maxTokens: tightest.threshold,
      fillIntervalMs: tightest.windowSeconds * 1000,
    };
  }
  return {
    kind: 'requests_per_time_unit',
    ...perStrategyUnit(tightest.requestsPerUnit, tightest.windowSeconds),
  };
}

/**
 * `requests` per `windowSeconds` as a whole number per envoy unit: the largest unit no longer
 * than the window (a window of one MINUTE stays per MINUTE; WEEK, which the envoy enum lacks, and
 * a unit_multiplier give their average per shorter unit), rounded down; a larger unit when that
 * rounds to 0, so a positive limit never becomes DENY_ALL.
 */
export function perStrategyUnit(
  requests: number,
  windowSeconds: number,
): { requests: number; unit: StrategyUnit; unitSeconds: number } {
  let index = 0;
  for (let i = 0; i < STRATEGY_UNITS.length; i++) {
    if (UNITS[STRATEGY_UNITS[i] as Unit].seconds <= windowSeconds) index = i;
  }
  for (let i = index; i < STRATEGY_UNITS.length; i++) {
    const unit = STRATEGY_UNITS[i] as StrategyUnit;
    const seconds = UNITS[unit].seconds;
    const perUnit = Math.floor((requests * seconds) / windowSeconds);
    if (perUnit >= 1 || i === STRATEGY_UNITS.length - 1)
      return { requests: perUnit, unit, unitSeconds: seconds };
  }
  throw new Error('unreachable: the last unit always returns');
}

/** Whether `a` and `b` are the same strategy: a client is sent a strategy again only when it changes, or to renew it. */
export function sameStrategy(a: Strategy, b: Strategy | undefined): boolean {
  if (a === b) return true;
  if (!b || a.kind !== b.kind) return false;
  switch (a.kind) {
    case 'blanket':
      return a.rule === (b as typeof a).rule;
    case 'requests_per_time_unit':
      return a.requests === (b as typeof a).requests && a.unit === (b as typeof a).unit;
    case 'token_bucket': {
      const other = b as typeof a;
      return (
        a.maxTokens === other.maxTokens &&
        a.tokensPerFill === other.tokensPerFill &&
        a.fillIntervalMs === other.fillIntervalMs
      );
    }
  }
}

/**
 * Whether `next` lets through at least what `held` does, whatever the traffic: DENY_ALL is
 * outgrown by anything, a rate by a larger one per the same unit, a token bucket by one with no
 * fewer tokens and refill per the same interval. A client moved to a larger share can be told
 * later without the shares in force ever adding up to more than the limit.
 */
export function allowsAtLeast(next: Strategy, held: Strategy): boolean {
  if (held.kind === 'blanket') return held.rule === 'DENY_ALL' || sameStrategy(next, held);
  if (next.kind !== held.kind) return false;
  if (next.kind === 'requests_per_time_unit') {
    const rate = held as typeof next;
    return next.unit === rate.unit && next.requests >= rate.requests;
  }
  if (next.kind === 'token_bucket') {
    const bucket = held as typeof next;
    return (
      next.fillIntervalMs === bucket.fillIntervalMs &&
      next.maxTokens >= bucket.maxTokens &&
      next.tokensPerFill >= bucket.tokensPerFill
    );
  }
  return false;
}

/** A key that is equal for equal strategies, to keep each strategy's encoding once. */
export function strategyKey(strategy: Strategy): string {
  switch (strategy.kind) {
    case 'blanket':
      return strategy.rule;
    case 'requests_per_time_unit':
      return `r${strategy.requests}/${strategy.unit}`;
    case 'token_bucket':
      return `t${strategy.maxTokens}/${strategy.tokensPerFill}/${strategy.fillIntervalMs}`;
  }
}
