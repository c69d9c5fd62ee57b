import type { AlgorithmParams } from '../../protocol/algorithm.js';
import type { CounterHit, CounterStore, HitResults, StoreDeps } from '../store.js';
import { type CommandBatch, type ScriptSpec, scriptSpec } from './commands.js';
import { RedisInstance } from './instance.js';
import { SLIDING_WINDOW_SCRIPT, TOKEN_BUCKET_SCRIPT } from './scripts.js';
import type { RedisSettings } from './settings.js';
import { tlsOptions } from './tls-files.js';

export interface RedisStoreOptions {
  /**
   * The time in ms the scripts count with, instead of the Redis server's TIME. For tests only:
   * in production every instance must share the server's clock.
   */
  readonly scriptClock?: () => number;
}

/**
 * The Redis counter store: INCRBY + EXPIRE per fixed-window key, a Lua script by EVALSHA per
 * sliding window or token bucket (src/backends/redis/scripts.ts), one pipeline per request and
 * instance. SECOND-unit keys go to the per-second instance when REDIS_PERSECOND=true.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  private readonly main: RedisInstance;
  private readonly perSecond: RedisInstance | undefined;
  private readonly healthListeners: ((healthy: boolean) => void)[] = [];
  private healthy: boolean;
  /** Per limit (its params object, made once per limit at load), its script call's fixed part. */
  private readonly scriptSpecs = new WeakMap<AlgorithmParams, ScriptSpec>();

  constructor(
    private readonly settings: RedisSettings,
    private readonly deps: StoreDeps,
    private readonly expirationJitterMaxSeconds: number,
    private readonly options: RedisStoreOptions = {},
  ) {
    const onActiveCountChange = () => this.updateHealth();
    this.main = new RedisInstance(
      settings.main,
      tlsOptions(settings.main.tls, settings.main.label),
      onActiveCountChange,
    );
    this.perSecond = settings.perSecond
      ? new RedisInstance(
          settings.perSecond,
          tlsOptions(settings.perSecond.tls, settings.perSecond.label),
          onActiveCountChange,
        )
      : undefined;
    // Without the health setting Redis never affects health (reference behaviour); with it, the
    // store is unhealthy until a connection is up (startup retries instead of crashing).
    this.healthy = !settings.healthCheckActiveConnection;
    for (const warning of settings.warnings) deps.log.warn(warning);
  }

  /**
   * Not async, and no await on the common path: the promise of the instance's pipeline is the
   * only one a request makes here.
   */
  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<HitResults> {
    const count = hits.length;
    if (count === 0) return Promise.resolve([]);
    // Plain arrays filled in one pass: the hot path builds no object per key.
    const keys = new Array<string>(count);
    const addends = new Array<number>(count);
    const ttls = new Array<number>(count);
    let adds = false;
    let algorithms = false;
    for (let i = 0; i < count; i++) {
      const hit = hits[i] as CounterHit;
      keys[i] = hit.key;
      addends[i] = hit.addend;
      ttls[i] = this.ttl(hit);
      if (hit.addend > 0) adds = true;
      if (hit.algorithm) algorithms = true;
    }
    const scripts = algorithms ? this.scriptsOf(hits) : undefined;
    const clockMs = algorithms && this.options.scriptClock ? String(this.options.scriptClock()) : undefined;
    if (options.stopIncrementWhenOverLimit && adds) {
      return this.addendsStoppingOverLimit(hits, keys, addends, scripts, clockMs).then((stopped) =>
        this.runLoaded(hits, { kind: 'increment', keys, addends: stopped, ttls, scripts, clockMs }),
      );
    }
    return this.runLoaded(hits, { kind: 'increment', keys, addends, ttls, scripts, clockMs });
  }

  isHealthy(): boolean {
    return this.healthy;
  }

  onHealthChange(listener: (healthy: boolean) => void): void {
    this.healthListeners.push(listener);
  }

  async close(): Promise<void> {
    await Promise.all([this.main.close(), this.perSecond?.close()]);
  }

  /**
   * STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT (reference 1.7): GET every key first; a key is flagged
   * when its count plus its addend would pass its limit. When any key is flagged only the flagged
   * keys are incremented, the others get INCRBY 0, so a request that is refused for one limit does
   * not use up the others.
   */
  private async addendsStoppingOverLimit(
    hits: readonly CounterHit[],
    keys: string[],
    addends: number[],
    scripts: readonly (ScriptSpec | undefined)[] | undefined,
    clockMs: string | undefined,
  ): Promise<number[]> {
    // A script that only looks answers `after` with the addend in it; GET answers the count before.
    const counts = await this.runLoaded(hits, { kind: 'get', keys, addends, ttls: [], scripts, clockMs });
    const flagged = hits.map(
      (hit, i) => (counts[i] as number) + (hit.algorithm ? 0 : (addends[i] as number)) > hit.limit,
    );
    if (!flagged.includes(true)) return addends;
    return addends.map((addend, i) => (flagged[i] ? addend : 0));
  }

  /** Per hit, its limit's script, or undefined for a fixed window. */
  private scriptsOf(hits: readonly CounterHit[]): (ScriptSpec | undefined)[] {
    const scripts = new Array<ScriptSpec | undefined>(hits.length);
    for (let i = 0; i < hits.length; i++) {
      const hit = hits[i] as CounterHit;
      const params = hit.algorithm;
      if (!params) continue;
      let spec = this.scriptSpecs.get(params);
      // A token bucket's burst is the hit's limit, which belongs to the same limit as its params.
      if (spec === undefined || (params.kind === 'token_bucket' && spec.fixedArgs[2] !== String(hit.limit))) {
        spec =
          params.kind === 'sliding_window'
            ? scriptSpec(SLIDING_WINDOW_SCRIPT, [String(params.windowMs)])
            : scriptSpec(TOKEN_BUCKET_SCRIPT, [
                String(params.windowMs),
                String(params.rate),
                String(hit.limit),
              ]);
        this.scriptSpecs.set(params, spec);
      }
      scripts[i] = spec;
    }
    return scripts;
  }

  /**
   * Runs the batch; the script keys Redis answered NOSCRIPT (a restart, SCRIPT FLUSH, a fail-over,
   * a cluster node seen for the first time) run again by EVAL, which also loads the script for
   * the next EVALSHA. A NOSCRIPT reply ran nothing, so nothing is counted twice.
   */
  private runLoaded(hits: readonly CounterHit[], batch: CommandBatch): Promise<HitResults> {
    if (!batch.scripts) return this.runRouted(hits, batch);
    // The common case settles this one promise from the instance's callback: no second promise
    // and microtask per request for the NOSCRIPT check.
    return new Promise((resolve, reject) => {
      const loaded = (values: HitResults) => {
        if (!anyNotLoaded(values, hits.length)) resolve(values);
        else this.runMissing(hits, batch, values).then(resolve, reject);
      };
      if (this.routesToMain(hits)) this.main.call(batch, loaded, reject);
      else this.runSplit(this.perSecond as RedisInstance, hits, batch).then(loaded, reject);
    });
  }

  /** The keys of `values` answered NOSCRIPT, run again by EVAL, merged into `values`. */
  private runMissing(
    hits: readonly CounterHit[],
    batch: CommandBatch,
    values: HitResults,
  ): Promise<HitResults> {
    const missing: number[] = [];
    for (let i = 0; i < hits.length; i++) if (Number.isNaN(values[i])) missing.push(i);
    return this.runRouted(
      missing.map((i) => hits[i] as CounterHit),
      { ...subset(batch, missing), evalText: true },
    ).then((again) => {
      missing.forEach((at, j) => {
        values[at] = again[j] as number;
        values[hits.length + at] = again[missing.length + j] as number;
      });
      return values;
    });
  }

  /** Whether every key goes to the main instance (no per-second instance, or no SECOND key). */
  private routesToMain(hits: readonly CounterHit[]): boolean {
    return !this.perSecond || !hits.some((hit) => hit.unit === 'SECOND');
  }

  /** Sends SECOND-unit keys to the per-second instance (both at once) and merges the results. */
  private runRouted(hits: readonly CounterHit[], batch: CommandBatch): Promise<HitResults> {
    if (this.routesToMain(hits)) return this.main.run(batch);
    return this.runSplit(this.perSecond as RedisInstance, hits, batch);
  }

  private async runSplit(
    perSecond: RedisInstance,
    hits: readonly CounterHit[],
    batch: CommandBatch,
  ): Promise<HitResults> {
    const mainIndexes: number[] = [];
    const secondIndexes: number[] = [];
    hits.forEach((hit, i) => {
      (hit.unit === 'SECOND' ? secondIndexes : mainIndexes).push(i);
    });
    const [mainValues, secondValues] = await Promise.all([
      mainIndexes.length > 0 ? this.main.run(subset(batch, mainIndexes)) : [],
      perSecond.run(subset(batch, secondIndexes)),
    ]);
    const values: HitResults = new Array<number>(hits.length);
    // Each part's answers, then (for its scripts) their reset times after them.
    const merge = (indexes: readonly number[], part: HitResults) => {
      indexes.forEach((at, i) => {
        values[at] = part[i] as number;
        if (part.length > indexes.length) values[hits.length + at] = part[indexes.length + i] as number;
      });
    };
    merge(mainIndexes, mainValues);
    merge(secondIndexes, secondValues);
    return values;
  }

  private ttl(hit: CounterHit): number {
    const jitter = this.expirationJitterMaxSeconds;
    return jitter > 0 ? hit.divider + this.deps.random(jitter) : hit.divider;
  }

  private updateHealth(): void {
    if (!this.settings.healthCheckActiveConnection) return;
    const healthy =
      this.main.activeConnectionCount > 0 && (!this.perSecond || this.perSecond.activeConnectionCount > 0);
    if (healthy === this.healthy) return;
    this.healthy = healthy;
    if (healthy) this.deps.log.warn('redis connection is up: health check passes again');
    else this.deps.log.error('no active redis connection: health check fails until one is back');
    for (const listener of this.healthListeners) listener(healthy);
  }
}

/** Whether any of the first `count` values is a script key Redis answered NOSCRIPT. */
function anyNotLoaded(values: HitResults, count: number): boolean {
  for (let i = 0; i < count; i++) if (Number.isNaN(values[i])) return true;
  return false;
}

/** The part of a batch for the keys at `indexes`. */
function subset(batch: CommandBatch, indexes: readonly number[]): CommandBatch {
  const pick = <T>(values: readonly T[]) => (values.length === 0 ? [] : indexes.map((i) => values[i] as T));
  return {
    kind: batch.kind,
    keys: pick(batch.keys),
    addends: pick(batch.addends),
    ttls: pick(batch.ttls),
    scripts: batch.scripts && pick(batch.scripts),
    clockMs: batch.clockMs,
    evalText: batch.evalText,
  };
}
