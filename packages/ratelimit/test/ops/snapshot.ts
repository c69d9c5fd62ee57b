import type { StatSnapshot } from '../../src/stats/sink.js';

export function snapshot(
  counters: Record<string, number>,
  gauges: Record<string, number> = {},
  timers: Record<string, number[]> = {},
): StatSnapshot {
  return {
    counters: new Map(Object.entries(counters)),
    gauges: new Map(Object.entries(gauges)),
    timers: new Map(Object.entries(timers)),
  };
}
