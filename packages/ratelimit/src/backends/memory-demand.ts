import { byClient, type DemandEntry, type DemandStore, type DemandWrite } from './demand.js';

interface Held {
  perSecond: number;
  expiresAtMs: number;
}

/**
 * Demand in this process (BACKEND_TYPE=memory): one instance, so only its own streams. It holds
 * at most one entry per open stream and bucket (the service bounds both), and an entry that is
 * not written again goes when its bucket is next read after it expired.
 */
export class MemoryDemandStore implements DemandStore {
  private readonly buckets = new Map<string, Map<string, Held>>();
  /** One instance's own, unless a test stands several instances on it (`shared: true`). */
  readonly shared: boolean;

  constructor(options: { readonly shared?: boolean } = {}) {
    this.shared = options.shared ?? false;
  }

  exchange(
    writes: readonly DemandWrite[],
    read: readonly string[],
    nowMs: number,
    ttlMs: number,
  ): Promise<DemandEntry[][]> {
    this.store(writes, nowMs, ttlMs);
    return Promise.resolve(read.map((bucket) => this.live(bucket, nowMs)));
  }

  write(writes: readonly DemandWrite[], nowMs: number, ttlMs: number): Promise<void> {
    this.store(writes, nowMs, ttlMs);
    return Promise.resolve();
  }

  remove(entries: ReadonlyArray<{ readonly bucket: string; readonly client: string }>): Promise<void> {
    for (const { bucket, client } of entries) {
      const clients = this.buckets.get(bucket);
      clients?.delete(client);
      if (clients?.size === 0) this.buckets.delete(bucket);
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

  private store(writes: readonly DemandWrite[], nowMs: number, ttlMs: number): void {
    for (const write of writes) {
      let clients = this.buckets.get(write.bucket);
      if (!clients) {
        clients = new Map();
        this.buckets.set(write.bucket, clients);
      }
      clients.set(write.client, { perSecond: write.perSecond, expiresAtMs: nowMs + ttlMs });
    }
  }

  private live(bucket: string, nowMs: number): DemandEntry[] {
    const clients = this.buckets.get(bucket);
    if (!clients) return [];
    const entries: DemandEntry[] = [];
    for (const [client, held] of clients) {
      if (held.expiresAtMs <= nowMs) clients.delete(client);
      else entries.push({ client, perSecond: held.perSecond });
    }
    if (clients.size === 0) this.buckets.delete(bucket);
    return entries.sort(byClient);
  }
}
