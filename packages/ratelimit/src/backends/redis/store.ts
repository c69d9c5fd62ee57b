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
  }

  async hit(
    hits: readonly CounterHit[],
    options: { stopIncrementWhenOverLimit: boolean },
  ): Promise<number[]> {
    if (hits.length === 0) return [];
    let addends: readonly number[] = hits.map((hit) => hit.addend);
    if (options.stopIncrementWhenOverLimit && addends.some((addend) => addend > 0)) {
      addends = await this.addendsStoppingOverLimit(hits, addends);
    }
    const ttls = hits.map((hit) => this.ttl(hit));
    return this.runRouted(hits, (keys, indexes) => ({
      kind: 'increment',
      keys,
      addends: indexes.map((i) => addends[i] as number),
      ttls: indexes.map((i) => ttls[i] as number),
    }));
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
    addends: readonly number[],
  ): Promise<readonly number[]> {
    const counts = await this.runRouted(hits, (keys) => ({ kind: 'get', keys, addends: [], ttls: [] }));
    const flagged = hits.map((hit, i) => (counts[i] as number) + (addends[i] as number) > hit.limit);
    if (!flagged.includes(true)) return addends;
    return addends.map((addend, i) => (flagged[i] ? addend : 0));
  }

  /** Splits hits between the instances, runs both at once and puts the results back in order. */
  private async runRouted(
    hits: readonly CounterHit[],
    build: (keys: string[], indexes: number[]) => CommandBatch,
  ): Promise<number[]> {
    const perSecond = this.perSecond;
    if (!perSecond || !hits.some((hit) => hit.unit === 'SECOND')) {
      return this.main.run(
        build(
          hits.map((hit) => hit.key),
          allIndexes(hits.length),
        ),
      );
    }
    const mainIndexes: number[] = [];
    const secondIndexes: number[] = [];
    hits.forEach((hit, i) => {
      (hit.unit === 'SECOND' ? secondIndexes : mainIndexes).push(i);
    });
    const keysOf = (indexes: number[]) => indexes.map((i) => (hits[i] as CounterHit).key);
    const [mainValues, secondValues] = await Promise.all([
      mainIndexes.length > 0 ? this.main.run(build(keysOf(mainIndexes), mainIndexes)) : [],
      perSecond.run(build(keysOf(secondIndexes), secondIndexes)),
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

function allIndexes(length: number): number[] {
  const indexes = new Array<number>(length);
  for (let i = 0; i < length; i++) indexes[i] = i;
  return indexes;
}
