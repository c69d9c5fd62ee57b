import type { CounterHit, CounterStore } from '../backends/store.js';
import type { LimitMatch } from '../config/tree.js';
import type { DescriptorStatus, RequestDescriptor } from '../service/messages.js';
import type { RuleStats, StatStore } from '../stats/store.js';
import { cacheKey, ExactKeyCache } from './cache-key.js';
import type { Clock } from './clock.js';
import { applyCounterResult, nearLimitThreshold, shadowedHits } from './decision.js';
import type { LocalOverLimitCache } from './local-cache.js';
import { type Unit, unitSeconds } from './units.js';
import { secondsUntilReset, windowStart } from './window.js';

export interface LimiterOptions {
  readonly cacheKeyPrefix: string;
  readonly nearLimitRatio: number;
  readonly stopIncrementWhenOverLimit: boolean;
}

/** A counter to hit, with the descriptor index its answer belongs to and its rule's stats. */
interface IndexedHit extends CounterHit {
  readonly index: number;
  readonly stats: RuleStats;
}

// Shared store options, so no options object is made per request.
const STOP_WHEN_OVER = Object.freeze({ stopIncrementWhenOverLimit: true });
const KEEP_INCREMENTING = Object.freeze({ stopIncrementWhenOverLimit: false });

/** A match whose rule has a unit, i.e. not unlimited. */
export type CountedLimit = LimitMatch & { readonly rule: { readonly unit: Unit } };

/**
 * Counts the hits of one request against its limits: cache keys, the local over-limit cache,
 * one store call for every remaining key, then the decision arithmetic and per-rule stats.
 */
export class RateLimiter {
  private readonly exactKeys: ExactKeyCache;

  constructor(
    private readonly store: CounterStore,
    private readonly localCache: LocalOverLimitCache | undefined,
    private readonly stats: StatStore,
    private readonly options: LimiterOptions,
    private readonly clock: Clock,
  ) {
    this.exactKeys = new ExactKeyCache(options.cacheKeyPrefix);
  }

  /**
   * Fills `statuses[i]` for every index with a limit; other indexes are left as they are.
   * Done on return (undefined) when the store answers at once (`hitNow`), so no promise is
   * made; otherwise the returned promise settles when done and rejects with the store's error.
   */
  check(
    domain: string,
    descriptors: readonly RequestDescriptor[],
    limits: readonly (CountedLimit | undefined)[],
    addends: readonly number[],
    statuses: DescriptorStatus[],
  ): Promise<void> | undefined {
    const now = this.clock();
    const hits: IndexedHit[] = [];
    // Allocated only when a key is already known to be over its limit, which is rare.
    let fromLocalCache: boolean[] | undefined;
    for (let i = 0; i < limits.length; i++) {
      const limit = limits[i];
      if (!limit) continue;
      const unit = limit.rule.unit;
      const start = windowStart(now, unit);
      const key =
        limit.cacheKeyBody === undefined
          ? cacheKey(
              this.options.cacheKeyPrefix,
              domain,
              (descriptors[i] as RequestDescriptor).entries,
              limit.sharedValues,
              start,
            )
          : this.exactKeys.key(limit, limit.cacheKeyBody, start);
      const addend = addends[i] as number;
      const stats = this.stats.ruleStats(limit.statKey);
      stats.totalHits.inc(addend);
      if (this.localCache?.has(key)) {
        fromLocalCache ??= [];
        fromLocalCache[i] = true;
        continue;
      }
      hits.push({
        key,
        addend,
        limit: limit.rule.requestsPerUnit,
        unit,
        divider: unitSeconds(unit),
        index: i,
        stats,
      });
    }

    const stop = this.options.stopIncrementWhenOverLimit;
    // Rule 11 with the local cache: a key already known to be over stops every other increment.
    const sent = stop && fromLocalCache ? hits.map((hit) => ({ ...hit, addend: 0 })) : hits;
    const options = stop ? STOP_WHEN_OVER : KEEP_INCREMENTING;
    if (sent.length === 0) {
      this.decide(limits, addends, hits, [], fromLocalCache, now, statuses);
      return undefined;
    }
    if (this.store.hitNow) {
      const afters = this.store.hitNow(sent, options, now);
      this.decide(limits, addends, hits, afters, fromLocalCache, now, statuses);
      return undefined;
    }
    return this.store.hit(sent, options).then((afters) => {
      this.decide(limits, addends, hits, afters, fromLocalCache, now, statuses);
    });
  }

  /** Statuses from the store's answers (`afters[h]` is the counter of `hits[h]` after adding). */
  private decide(
    limits: readonly (CountedLimit | undefined)[],
    addends: readonly number[],
    hits: readonly IndexedHit[],
    afters: readonly number[],
    fromLocalCache: readonly boolean[] | undefined,
    now: number,
    statuses: DescriptorStatus[],
  ): void {
    for (let i = 0; i < limits.length; i++) {
      const limit = limits[i];
      if (!limit) continue;
      statuses[i] = this.status(limit, addends[i] as number, fromLocalCache?.[i] === true, now);
    }
    for (let h = 0; h < hits.length; h++) {
      const hit = hits[h] as IndexedHit;
      const i = hit.index;
      this.applyResult(limits[i] as CountedLimit, hit, afters[h] as number, statuses[i] as DescriptorStatus);
    }
  }

  private status(
    limit: CountedLimit,
    addend: number,
    fromLocalCache: boolean,
    now: number,
  ): DescriptorStatus {
    const rule = limit.rule;
    const status: DescriptorStatus = {
      code: 'OK',
      currentLimit: { name: rule.name, requestsPerUnit: rule.requestsPerUnit, unit: rule.unit },
      limitRemaining: 0,
      durationUntilReset: { seconds: secondsUntilReset(now, rule.unit), nanos: 0 },
    };
    if (fromLocalCache) {
      const stats = this.stats.ruleStats(limit.statKey);
      stats.overLimit.inc(addend);
      stats.overLimitWithLocalCache.inc(addend);
      status.code = 'OVER_LIMIT';
      if (rule.shadowMode) {
        status.code = 'OK';
        stats.shadowMode.inc(shadowedHits(rule.requestsPerUnit, 0, addend, true));
      }
    }
    return status;
  }

  private applyResult(limit: CountedLimit, hit: IndexedHit, after: number, status: DescriptorStatus): void {
    const rule = limit.rule;
    const stats = hit.stats;
    const near = nearLimitThreshold(rule.requestsPerUnit, this.options.nearLimitRatio);
    const remaining = applyCounterResult(stats, rule.requestsPerUnit, near, after, hit.addend);
    if (remaining >= 0) {
      status.limitRemaining = remaining;
      return;
    }
    this.localCache?.set(hit.key, hit.divider);
    if (rule.shadowMode) {
      stats.shadowMode.inc(shadowedHits(rule.requestsPerUnit, after, hit.addend, false));
    } else {
      status.code = 'OVER_LIMIT';
    }
  }
}
