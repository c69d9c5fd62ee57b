import { flatten } from '../flat-string.js';
import type { CounterHit, CounterStore, StoreDeps } from './store.js';

export interface MemoryStoreOptions {
  /** Most live counters kept; past it the oldest counter is evicted (counted as `ratelimit.memory.evictions`). */
  readonly maxCounters: number;
}

export const DEFAULT_MEMORY_MAX_COUNTERS = 2_000_000;
/** Entries checked for expiry on every call, so expired counters leave without a timer per key. */
const SWEEP_PER_CALL = 4;
/** Entries checked when the store is full, before it falls back to evicting the oldest counter. */
const SWEEP_WHEN_FULL = 1024;
const INITIAL_SLOTS = 1024;

/**
 * In-process expiring counters for a single instance. Layout for a million live counters: one
 * Map from key to a slot number, and the counts and expiry times in typed arrays indexed by
 * slot, so a counter costs its key string, one Map entry and 12 bytes.
 */
export class MemoryStore implements CounterStore {
  readonly kind = 'memory';
  private readonly slots = new Map<string, number>();
  private counts = new Float64Array(INITIAL_SLOTS);
  private expiries = new Uint32Array(INITIAL_SLOTS);
  private freeSlots: number[] = [];
  private nextSlot = 0;
  private sweepCursor: Iterator<[string, number]> | undefined;
  /**
   * The second in which the sweep last finished a pass over every counter. Counters expire on
   * whole seconds, so until the clock moves on there is nothing new to sweep; with few
   * counters this spares every call but the first of a second the iterator work.
   */
  private sweptAt = -1;

  constructor(
    private readonly deps: StoreDeps,
    private readonly options: MemoryStoreOptions = { maxCounters: DEFAULT_MEMORY_MAX_COUNTERS },
  ) {}

  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<number[]> {
    return Promise.resolve(this.hitNow(hits, options, this.deps.now()));
  }

  hitNow(
    hits: readonly CounterHit[],
    options: { stopIncrementWhenOverLimit: boolean },
    now: number,
  ): number[] {
    if (now !== this.sweptAt) this.sweep(now, SWEEP_PER_CALL);
    const results = new Array<number>(hits.length);
    if (options.stopIncrementWhenOverLimit && this.anyWouldExceed(hits, now)) {
      // Rule 11: once one counter of the request is over, only the over counters advance.
      for (let i = 0; i < hits.length; i++) {
        const hit = hits[i] as CounterHit;
        const over = this.current(hit.key, now) + hit.addend > hit.limit;
        results[i] = this.add(hit.key, over ? hit.addend : 0, hit.divider, now);
      }
    } else {
      for (let i = 0; i < hits.length; i++) {
        const hit = hits[i] as CounterHit;
        results[i] = this.add(hit.key, hit.addend, hit.divider, now);
      }
    }
    return results;
  }

  get size(): number {
    return this.slots.size;
  }

  isHealthy(): boolean {
    return true;
  }

  onHealthChange(): void {
    // An in-process store is never unreachable, so its health never changes.
  }

  close(): Promise<void> {
    this.slots.clear();
    return Promise.resolve();
  }

  private anyWouldExceed(hits: readonly CounterHit[], now: number): boolean {
    for (const hit of hits) if (this.current(hit.key, now) + hit.addend > hit.limit) return true;
    return false;
  }

  private current(key: string, now: number): number {
    const slot = this.slots.get(key);
    if (slot === undefined || (this.expiries[slot] as number) <= now) return 0;
    return this.counts[slot] as number;
  }

  private add(key: string, addend: number, ttlSeconds: number, now: number): number {
    let slot = this.slots.get(key);
    if (slot !== undefined && (this.expiries[slot] as number) <= now) {
      this.release(key, slot);
      slot = undefined;
    }
    if (slot === undefined) {
      slot = this.allocate(key, now);
      this.counts[slot] = 0;
      // The key holds its window start, so it is never used after its window: no refresh needed.
      this.expiries[slot] = now + ttlSeconds;
    }
    const after = (this.counts[slot] as number) + addend;
    this.counts[slot] = after;
    return after;
  }

  private allocate(key: string, now: number): number {
    if (this.slots.size >= this.options.maxCounters) this.makeRoom(now);
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.nextSlot++;
      if (slot >= this.counts.length) this.grow();
    }
    // Cache keys are concatenated ropes; a flat copy costs about 60 MB less per million keys.
    this.slots.set(flatten(key), slot);
    return slot;
  }

  private makeRoom(now: number): void {
    this.sweep(now, SWEEP_WHEN_FULL);
    if (this.slots.size < this.options.maxCounters) return;
    const oldest = this.slots.entries().next();
    if (oldest.done) return;
    this.release(oldest.value[0], oldest.value[1]);
    this.deps.stats.inc('ratelimit.memory.evictions');
  }

  private grow(): void {
    const counts = new Float64Array(this.counts.length * 2);
    counts.set(this.counts);
    const expiries = new Uint32Array(this.expiries.length * 2);
    expiries.set(this.expiries);
    this.counts = counts;
    this.expiries = expiries;
  }

  private release(key: string, slot: number): void {
    this.slots.delete(key);
    this.freeSlots.push(slot);
  }

  /** Checks up to `budget` counters, continuing where the last sweep stopped. */
  private sweep(now: number, budget: number): void {
    for (let checked = 0; checked < budget && this.slots.size > 0; checked++) {
      this.sweepCursor ??= this.slots.entries();
      const next = this.sweepCursor.next();
      if (next.done) {
        this.sweepCursor = undefined;
        this.sweptAt = now;
        continue;
      }
      const [key, slot] = next.value;
      if ((this.expiries[slot] as number) <= now) this.release(key, slot);
    }
  }
}
