import type { StoreStats } from '../backends/store.js';
import { STAT, sanitizeStatName } from './names.js';
import type { StatSink, StatSnapshot } from './sink.js';

export class Counter {
  value = 0;
  constructor(readonly name: string) {}
  inc(by = 1): void {
    this.value += by;
  }
}

export class Timer {
  samples: number[] = [];
  constructor(
    readonly name: string,
    private readonly maxSamples: number,
  ) {}
  /** Records a duration in milliseconds; past maxSamples per flush interval, samples are dropped. */
  record(milliseconds: number): void {
    if (this.samples.length < this.maxSamples) this.samples.push(milliseconds);
  }
}

/** The per-rule counters of the reference, under `ratelimit.service.rate_limit.<statKey>.`. */
export interface RuleStats {
  readonly totalHits: Counter;
  readonly overLimit: Counter;
  readonly nearLimit: Counter;
  readonly overLimitWithLocalCache: Counter;
  readonly withinLimit: Counter;
  readonly shadowMode: Counter;
}

export interface StatStoreOptions {
  /** Upper bound of timer samples kept between two flushes, so memory stays bounded under load. */
  readonly maxTimerSamples?: number;
  /** STATS_MAX_PER_VALUE_KEYS: most stat keys made from request values rather than the config. */
  readonly maxPerValueKeys?: number;
}

export const DEFAULT_MAX_PER_VALUE_KEYS = 10_000;
/** Where the stats of per-value keys past the bound are added up, under the rule root. */
export const PER_VALUE_OVERFLOW_KEY = 'per_value_overflow';

/**
 * In-process stats: counters, gauges and timers under the reference's full dotted names.
 * Hot paths hold Counter objects and add to them; sinks get a snapshot every flush interval.
 */
export class StatStore implements StoreStats {
  private readonly counters = new Map<string, Counter>();
  private readonly timers = new Map<string, Timer>();
  private readonly gauges = new Map<string, number>();
  private readonly gaugeSources: Array<() => Iterable<readonly [string, number]>> = [];
  private readonly rules = new Map<string, RuleStats>();
  private readonly sinks: StatSink[] = [];
  private readonly maxTimerSamples: number;
  private flushTimer: NodeJS.Timeout | undefined;
  /** The loaded config's rule stat keys, which never count against the per-value bound. */
  private configStatKeys: ReadonlySet<string> = new Set();
  private perValueKeys = 0;
  private readonly maxPerValueKeys: number;

  constructor(options: StatStoreOptions = {}) {
    this.maxTimerSamples = options.maxTimerSamples ?? 100_000;
    this.maxPerValueKeys = options.maxPerValueKeys ?? DEFAULT_MAX_PER_VALUE_KEYS;
  }

  /** Called on every config load with the stat keys of its rules. */
  setConfigStatKeys(keys: ReadonlySet<string>): void {
    this.configStatKeys = keys;
  }

  counter(name: string): Counter {
    let counter = this.counters.get(name);
    if (!counter) {
      counter = new Counter(name);
      this.counters.set(name, counter);
    }
    return counter;
  }

  timer(name: string): Timer {
    let timer = this.timers.get(name);
    if (!timer) {
      timer = new Timer(name, this.maxTimerSamples);
      this.timers.set(name, timer);
    }
    return timer;
  }

  inc(name: string, by = 1): void {
    this.counter(name).inc(by);
  }

  setGauge(name: string, value: number): void {
    this.gauges.set(name, value);
  }

  /** Registers gauges that are read when a snapshot is taken (e.g. the local cache's). */
  addGaugeSource(source: () => Iterable<readonly [string, number]>): void {
    this.gaugeSources.push(source);
  }

  /**
   * The rule counters of `statKey`. A key that is not one of the config's (detailed_metric,
   * value_to_metric and request overrides put request values in it) is a new set of counters
   * for every new value; past STATS_MAX_PER_VALUE_KEYS of them, new ones are added up under
   * `per_value_overflow` and counted as `ratelimit.stats.per_value_overflow` (the reference
   * keeps every one, its issue #275).
   */
  ruleStats(statKey: string): RuleStats {
    let stats = this.rules.get(statKey);
    if (!stats) {
      if (!this.configStatKeys.has(statKey) && statKey !== PER_VALUE_OVERFLOW_KEY) {
        if (this.perValueKeys >= this.maxPerValueKeys) {
          this.counter(STAT.perValueOverflow).inc();
          return this.ruleStats(PER_VALUE_OVERFLOW_KEY);
        }
        this.perValueKeys++;
      }
      const base = `${STAT.ruleRoot}${sanitizeStatName(statKey)}.`;
      stats = {
        totalHits: this.counter(`${base}total_hits`),
        overLimit: this.counter(`${base}over_limit`),
        nearLimit: this.counter(`${base}near_limit`),
        overLimitWithLocalCache: this.counter(`${base}over_limit_with_local_cache`),
        withinLimit: this.counter(`${base}within_limit`),
        shadowMode: this.counter(`${base}shadow_mode`),
      };
      this.rules.set(statKey, stats);
    }
    return stats;
  }

  /** `domain_not_found` of a domain no config has: a per-value key, bounded like the rule keys. */
  domainNotFound(domain: string): Counter {
    const name = `${STAT.ruleRoot}${sanitizeStatName(domain)}.domain_not_found`;
    const known = this.counters.get(name);
    if (known) return known;
    if (this.perValueKeys >= this.maxPerValueKeys) {
      this.counter(STAT.perValueOverflow).inc();
      return this.counter(`${STAT.ruleRoot}${PER_VALUE_OVERFLOW_KEY}.domain_not_found`);
    }
    this.perValueKeys++;
    return this.counter(name);
  }

  /** Current values; timer samples are handed over and reset when `drainTimers` is true. */
  snapshot(drainTimers = false): StatSnapshot {
    const counters = new Map<string, number>();
    for (const [name, counter] of this.counters) counters.set(name, counter.value);
    const gauges = new Map(this.gauges);
    for (const source of this.gaugeSources) for (const [name, value] of source()) gauges.set(name, value);
    const timers = new Map<string, readonly number[]>();
    for (const [name, timer] of this.timers) {
      timers.set(name, drainTimers ? timer.samples : [...timer.samples]);
      if (drainTimers) timer.samples = [];
    }
    return { counters, gauges, timers };
  }

  addSink(sink: StatSink): void {
    this.sinks.push(sink);
  }

  /** Flushes to every sink now; a sink that throws is isolated from the others. */
  flush(): void {
    const snapshot = this.snapshot(true);
    for (const sink of this.sinks) {
      try {
        sink.flush(snapshot);
      } catch {
        // The sink contract says flush must not throw; one broken sink must not stop the rest.
      }
    }
  }

  /** Starts flushing every `intervalMs` (STATS_FLUSH_INTERVAL). */
  start(intervalMs: number): void {
    this.flushTimer ??= setInterval(() => this.flush(), intervalMs);
    this.flushTimer.unref();
  }

  async close(): Promise<void> {
    if (this.flushTimer) clearInterval(this.flushTimer);
    this.flushTimer = undefined;
    this.flush();
    await Promise.all(this.sinks.map((sink) => sink.close()));
  }
}
