import { byClient, type DemandEntry, type DemandStore, type DemandWrite } from './demand.js';

/**
 * Demand in this process (BACKEND_TYPE=memory): one instance, so only its own streams. An entry
 * holds until the service removes it (its stream closed, its bucket abandoned), which it always
 * does, since every instance writing here lives in this process and removes its clients when it
 * stops: nothing expires. It holds at most one entry per open stream and bucket (the service
 * bounds both).
 */
export class MemoryDemandStore implements DemandStore {
  /** Per bucket its clients' demand, and their entries sorted as last read (undefined after a change). */
  private readonly buckets = new Map<
    string,
    { demand: Map<string, number>; sorted: DemandEntry[] | undefined }
  >();
  /** One instance's own, unless a test stands several instances on it (`shared: true`). */
  readonly shared: boolean;

  constructor(options: { readonly shared?: boolean } = {}) {
    this.shared = options.shared ?? false;
  }

  exchange(writes: readonly DemandWrite[], read: readonly string[]): Promise<DemandEntry[][]> {
    this.store(writes);
    return Promise.resolve(read.map((bucket) => this.entries(bucket)));
  }

  write(writes: readonly DemandWrite[]): Promise<void> {
    this.store(writes);
    return Promise.resolve();
  }

  remove(entries: ReadonlyArray<{ readonly bucket: string; readonly client: string }>): Promise<void> {
    for (const { bucket, client } of entries) {
      const held = this.buckets.get(bucket);
      if (!held?.demand.delete(client)) continue;
      held.sorted = undefined;
      if (held.demand.size === 0) this.buckets.delete(bucket);
    }
    return Promise.resolve();
  }

  close(): Promise<void> {
    this.buckets.clear();
    return Promise.resolve();
  }

  /** Buckets held, for tests of the bound. */
  get size(): number {
    return this.buckets.size;
  }

  private store(writes: readonly DemandWrite[]): void {
    for (const write of writes) {
      let held = this.buckets.get(write.bucket);
      if (!held) {
        held = { demand: new Map(), sorted: undefined };
        this.buckets.set(write.bucket, held);
      }
      held.demand.set(write.client, write.perSecond);
      held.sorted = undefined;
    }
  }

  private entries(bucket: string): DemandEntry[] {
    const held = this.buckets.get(bucket);
    if (!held) return [];
    if (!held.sorted) {
      held.sorted = [];
      for (const [client, perSecond] of held.demand) held.sorted.push({ client, perSecond });
      held.sorted.sort(byClient);
    }
    return held.sorted;
  }
}
