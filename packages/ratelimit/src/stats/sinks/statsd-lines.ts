import type { StatSnapshot } from '../sink.js';
import type { CounterDeltas } from './counter-deltas.js';

/** One flushed stat, in the order statsd lines are written. */
export interface FlushedStat {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'timer';
  readonly value: number;
}

/** Counter deltas (non-zero only), then every gauge, then each timer sample on its own. */
export function flushedStats(snapshot: StatSnapshot, deltas: CounterDeltas): FlushedStat[] {
  const stats: FlushedStat[] = [];
  forEachFlushedStat(snapshot, deltas, (name, type, value) => stats.push({ name, type, value }));
  return stats;
}

/**
 * The same stats in the same order, handed to `visit` one by one: a flush under load holds up
 * to 100,000 timer samples, and this way no object is made per sample.
 */
export function forEachFlushedStat(
  snapshot: StatSnapshot,
  deltas: CounterDeltas,
  visit: (name: string, type: FlushedStat['type'], value: number) => void,
): void {
  for (const [name, value] of deltas.take(snapshot.counters)) visit(name, 'counter', value);
  for (const [name, value] of snapshot.gauges) visit(name, 'gauge', value);
  for (const [name, samples] of snapshot.timers) {
    for (let i = 0; i < samples.length; i++) visit(name, 'timer', samples[i] as number);
  }
}

const statsdTypes = { counter: 'c', gauge: 'g', timer: 'ms' } as const;

export function statsdType(type: FlushedStat['type']): string {
  return statsdTypes[type];
}
