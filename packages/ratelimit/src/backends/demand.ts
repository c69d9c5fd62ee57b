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
   * Writes `writes` (each kept until `nowMs + ttlMs` unless written again, or, in a shared store,
   * until removed or until the instance that wrote it has been silent for `ttlMs`) and resolves,
   * per bucket of `read` in that order, to the live entries of that bucket sorted by client id.
   * `writes` hold every client of this instance for the buckets of `read`; a shared store may skip
   * those that barely move a demand it holds. Rejects with a StoreError when the store fails.
   */
  exchange(
    writes: readonly DemandWrite[],
    read: readonly string[],
    nowMs: number,
    ttlMs: number,
  ): Promise<DemandEntry[][]>;
  /**
   * Writes `writes` only (kept until `nowMs + ttlMs`), without reading: a report whose shares need
   * not be computed again still leaves its demand for the next rebalance of every instance. A store
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
