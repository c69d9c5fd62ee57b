/**
 * The store hands sinks cumulative counters; statsd-style sinks send what changed since the last
 * flush. This keeps the previously seen totals and yields only the counters that moved.
 */
export class CounterDeltas {
  readonly #last = new Map<string, number>();

  /** Returns `[name, delta]` for every counter whose total changed since the previous call. */
  take(counters: ReadonlyMap<string, number>): Array<[string, number]> {
    const deltas: Array<[string, number]> = [];
    for (const [name, total] of counters) {
      const delta = total - (this.#last.get(name) ?? 0);
      this.#last.set(name, total);
      if (delta !== 0) deltas.push([name, delta]);
    }
    return deltas;
  }
}
