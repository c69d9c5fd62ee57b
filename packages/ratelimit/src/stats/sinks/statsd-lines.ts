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
  for (const [name, value] of deltas.take(snapshot.counters)) stats.push({ name, type: 'counter', value });
  for (const [name, value] of snapshot.gauges) stats.push({ name, type: 'gauge', value });
  for (const [name, samples] of snapshot.timers) {
    for (const value of samples) stats.push({ name, type: 'timer', value });
  }
  return stats;
}

const statsdTypes = { counter: 'c', gauge: 'g', timer: 'ms' } as const;

export function statsdType(type: FlushedStat['type']): string {
  return statsdTypes[type];
}
