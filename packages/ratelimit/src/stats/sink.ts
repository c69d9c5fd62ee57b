/**
 * CONTRACT between the stat store (src/stats/store.ts) and the sinks (src/stats/sinks/*).
 * Stat names are the reference's full dotted names, e.g.
 * `ratelimit.service.rate_limit.mongo_cps.database_users.total_hits`.
 */
export interface StatSnapshot {
  /** Cumulative totals since start; a push sink that needs deltas keeps the last values itself. */
  readonly counters: ReadonlyMap<string, number>;
  /** Current values. */
  readonly gauges: ReadonlyMap<string, number>;
  /** Durations in milliseconds recorded since the previous flush. */
  readonly timers: ReadonlyMap<string, readonly number[]>;
}

export interface StatSink {
  /** Called every STATS_FLUSH_INTERVAL with the store's current snapshot. Must not throw. */
  flush(snapshot: StatSnapshot): void;
  close(): Promise<void>;
}
