import type { CounterStore } from '../backends/store.js';
import { withSpan } from './spans.js';

/** Wraps a counter store so every round of hits is a span (`redis hit`, `memcache hit`, ...). */
export function tracedStore(store: CounterStore): CounterStore {
  return {
    kind: store.kind,
    hit: (hits, options) =>
      withSpan(
        `${store.kind} hit`,
        { attributes: { 'ratelimit.store': store.kind, 'ratelimit.keys': hits.length } },
        () => store.hit(hits, options),
      ),
    isHealthy: () => store.isHealthy(),
    onHealthChange: (listener) => store.onHealthChange(listener),
    close: () => store.close(),
  };
}
