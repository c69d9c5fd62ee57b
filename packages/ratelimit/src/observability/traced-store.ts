import type { CounterHit, CounterStore } from '../backends/store.js';
import { withSpan } from './spans.js';

/**
 * Wraps a counter store so every round of hits is a span with the reference's name and
 * attributes: `Redis Pipeline Execution` (`pipeline length` and `perSecondPipeline length`, two
 * commands per key), `Memcached Fetch Execution` (`keysToGet length`); the memory store, which
 * the reference does not have, gets `Memory Store Execution` (`keys length`).
 */
export function tracedStore(store: CounterStore, options: { perSecondRedis: boolean }): CounterStore {
  return {
    kind: store.kind,
    hit: (hits, hitOptions) =>
      withSpan(spanName(store.kind), { attributes: spanAttributes(store.kind, hits, options) }, () =>
        store.hit(hits, hitOptions),
      ),
    isHealthy: () => store.isHealthy(),
    onHealthChange: (listener) => store.onHealthChange(listener),
    close: () => store.close(),
  };
}

function spanName(kind: CounterStore['kind']): string {
  if (kind === 'redis') return 'Redis Pipeline Execution';
  if (kind === 'memcache') return 'Memcached Fetch Execution';
  return 'Memory Store Execution';
}

function spanAttributes(
  kind: CounterStore['kind'],
  hits: readonly CounterHit[],
  options: { perSecondRedis: boolean },
): Record<string, number> {
  if (kind === 'memcache') return { 'keysToGet length': hits.length };
  if (kind === 'memory') return { 'keys length': hits.length };
  const perSecond = options.perSecondRedis ? hits.filter((hit) => hit.unit === 'SECOND').length : 0;
  return { 'pipeline length': 2 * (hits.length - perSecond), 'perSecondPipeline length': 2 * perSecond };
}
