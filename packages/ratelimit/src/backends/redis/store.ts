import type { CounterHit, CounterStore, StoreDeps } from '../store.js';
import type { CommandBatch } from './commands.js';
import { RedisInstance } from './instance.js';
import type { RedisSettings } from './settings.js';
import { tlsOptions } from './tls-files.js';

/**
 * The Redis counter store: INCRBY + EXPIRE per key, one pipeline per request and instance.
 * SECOND-unit keys go to the per-second instance when REDIS_PERSECOND=true.
 */
export class RedisCounterStore implements CounterStore {
  readonly kind = 'redis' as const;
  private readonly main: RedisInstance;
  private readonly perSecond: RedisInstance | undefined;
  private readonly healthListeners: ((healthy: boolean) => void)[] = [];
  private healthy: boolean;

  constructor(
    private readonly settings: RedisSettings,
    private readonly deps: StoreDeps,
    private readonly expirationJitterMaxSeconds: number,
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
  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<number[]> {
    const count = hits.length;
    if (count === 0) return Promise.resolve([]);
    // Plain arrays filled in one pass: the hot path builds no object per key.
    const keys = new Array<string>(count);
    const addends = new Array<number>(count);
    const ttls = new Array<number>(count);
    let adds = false;
    for (let i = 0; i < count; i++) {
      const hit = hits[i] as CounterHit;
      keys[i] = hit.key;
      addends[i] = hit.addend;
      ttls[i] = this.ttl(hit);
      if (hit.addend > 0) adds = true;
    }
    if (options.stopIncrementWhenOverLimit && adds) {
      return this.addendsStoppingOverLimit(hits, keys, addends).then((stopped) =>
        this.runRouted(hits, { kind: 'increment', keys, addends: stopped, ttls }),
      );
    }
    return this.runRouted(hits, { kind: 'increment', keys, addends, ttls });
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
  ): Promise<number[]> {
    const counts = await this.runRouted(hits, { kind: 'get', keys, addends: [], ttls: [] });
    const flagged = hits.map((hit, i) => (counts[i] as number) + (addends[i] as number) > hit.limit);
    if (!flagged.includes(true)) return addends;
    return addends.map((addend, i) => (flagged[i] ? addend : 0));
  }

  /** Sends SECOND-unit keys to the per-second instance (both at once) and merges the results. */
  private runRouted(hits: readonly CounterHit[], batch: CommandBatch): Promise<number[]> {
    const perSecond = this.perSecond;
    if (!perSecond || !hits.some((hit) => hit.unit === 'SECOND')) return this.main.run(batch);
    return this.runSplit(perSecond, hits, batch);
  }

  private async runSplit(
    perSecond: RedisInstance,
    hits: readonly CounterHit[],
    batch: CommandBatch,
  ): Promise<number[]> {
    const mainIndexes: number[] = [];
    const secondIndexes: number[] = [];
    hits.forEach((hit, i) => {
      (hit.unit === 'SECOND' ? secondIndexes : mainIndexes).push(i);
    });
    const [mainValues, secondValues] = await Promise.all([
      mainIndexes.length > 0 ? this.main.run(subset(batch, mainIndexes)) : [],
      perSecond.run(subset(batch, secondIndexes)),
    ]);
    const values = new Array<number>(hits.length);
    mainIndexes.forEach((at, i) => {
      values[at] = mainValues[i] as number;
    });
    secondIndexes.forEach((at, i) => {
      values[at] = secondValues[i] as number;
    });
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

/** The part of a batch for the keys at `indexes`. */
function subset(batch: CommandBatch, indexes: readonly number[]): CommandBatch {
  const pick = <T>(values: readonly T[]) => (values.length === 0 ? [] : indexes.map((i) => values[i] as T));
  return { kind: batch.kind, keys: pick(batch.keys), addends: pick(batch.addends), ttls: pick(batch.ttls) };
}
