/**
 * Where the RLQS service keeps every client's recent demand per bucket, so that every service
 * instance on the same store computes the same shares: in-process for the memory store, a hash
 * per bucket in Redis. Memcached keeps none (RLQS is refused at startup with it).
 */

/** One client's demand for one bucket: written by the instance that holds the client's stream. */
export interface DemandWrite {
  /** The bucket's store key (domain and canonical bucket id). */
  readonly bucket: string;
  /** `<instance id>/<stream id>`: unique across the instances sharing the store. */
  readonly client: string;
  /** Requests per second over the client's last report. */
  readonly perSecond: number;
}

export interface DemandEntry {
  readonly client: string;
  readonly perSecond: number;
}

export interface DemandStore {
  /**
   * Whether other instances write to this store too. Then every rebalance reads every bucket, to
   * learn their clients' demand; otherwise only the buckets whose own demand or config changed.
   */
  readonly shared: boolean;
  /**
   * Writes `writes` and resolves, per bucket of `read` in that order, to the live entries of that
   * bucket sorted by client id. Writes are changes: a client's entry holds the demand last written
   * for it until it is removed or, in a shared store, until the instance that wrote it has been
   * silent for `ttlMs`; a steady client is written once. The store keeps what it was given, and
   * writes it again itself if the store lost it; a shared store may skip a write that barely moves
   * a demand it holds. Rejects with a StoreError when the store fails.
   */
  exchange(
    writes: readonly DemandWrite[],
    read: readonly string[],
    nowMs: number,
    ttlMs: number,
  ): Promise<DemandEntry[][]>;
  /**
   * Writes `writes` (changes, as for `exchange`) without reading: a report whose shares need not
   * be computed again still leaves its demand for the next rebalance of every instance. A store
   * may hold the writes until its next exchange, at most a third of `ttlMs`.
   */
  write(writes: readonly DemandWrite[], nowMs: number, ttlMs: number): Promise<void>;
  /** Forgets these clients' entries (a closed stream, an abandoned bucket). */
  remove(entries: ReadonlyArray<{ readonly bucket: string; readonly client: string }>): Promise<void>;
  close(): Promise<void>;
}

/** Sorts entries by client id, the order every instance shares out in. */
export function byClient(a: DemandEntry, b: DemandEntry): number {
  return a.client < b.client ? -1 : a.client > b.client ? 1 : 0;
}
