import type { AlgorithmParams } from '../config/tree.js';
import { flatten } from '../flat-string.js';
import {
  rollSlidingWindow,
  type SlidingWindowAnswer,
  type SlidingWindowState,
  slidingWindowHit,
} from '../limiter/algorithms/sliding-window.js';
import {
  refillTokenBucket,
  type TokenBucketAnswer,
  type TokenBucketState,
  tokenBucketHit,
} from '../limiter/algorithms/token-bucket.js';
import type { CounterHit, CounterStore, HitResults, StoreDeps } from './store.js';

export interface MemoryStoreOptions {
  /** Most live counters kept (MEMORY_MAX_COUNTERS). */
  readonly maxCounters: number;
  /** Most bytes the counters may take, keys and bookkeeping included (MEMORY_MAX_BYTES). */
  readonly maxBytes: number;
}

export const DEFAULT_MEMORY_MAX_COUNTERS = 2_000_000;
export const DEFAULT_MEMORY_MAX_BYTES = 256 * 1024 * 1024;
/**
 * What one counter costs besides its key's characters: the key string's header, its Map entry,
 * and the slot's entries in the typed arrays (at up to twice the live slots, as they grow by
 * doubling). Measured: a million counters with 47-byte keys take 135 bytes each of heap and
 * array buffers (88 besides the key), so 128 over-counts a little, on the safe side.
 */
export const COUNTER_OVERHEAD_BYTES = 128;
/** What a sliding window's or token bucket's state object adds to its counter's cost. */
export const STATE_OVERHEAD_BYTES = 64;
/** Expired counters reclaimed per call beyond the call's own new keys, so reclaiming keeps pace. */
const RECLAIM_PER_CALL = 4;
/** Expired counters reclaimed per timer tick, so an idle store gives its memory back too. */
const RECLAIM_PER_TICK = 10_000;
const RECLAIM_TICK_MS = 1000;
const INITIAL_SLOTS = 1024;
const NONE = -1;
const MAX_QUEUE_INDEX = 0xffff;

/**
 * In-process expiring counters for a single instance.
 *
 * Layout: one Map from key to a slot number; per slot, the count, expiry and key in arrays, and
 * two doubly linked lists threaded through typed arrays:
 * - the recency list (every hit moves its slot to the front), whose back is the least recently
 *   used counter, evicted when the store is full;
 * - one queue per TTL in creation order. A counter's expiry is its creation time plus its TTL, so
 *   each queue is also in expiry order and its front is the next counter to expire: expired
 *   counters are found without scanning live ones.
 * So reclaiming an expired counter, evicting one and touching one are each O(1) (O(number of
 * distinct TTLs) to look at the queue fronts, a handful: one per window length in the config).
 */
export class MemoryStore implements CounterStore {
  readonly kind = 'memory';
  private readonly slots = new Map<string, number>();
  private keys: string[] = [];
  /** Per slot, the state of a sliding window or token bucket; undefined for a fixed window's count. */
  private states: (SlidingWindowState | TokenBucketState | undefined)[] = [];
  private counts = new Float64Array(INITIAL_SLOTS);
  private expiries = new Uint32Array(INITIAL_SLOTS);
  private recentPrev = new Int32Array(INITIAL_SLOTS);
  private recentNext = new Int32Array(INITIAL_SLOTS);
  private mostRecent = NONE;
  private leastRecent = NONE;
  private queueOf = new Uint16Array(INITIAL_SLOTS);
  private queuePrev = new Int32Array(INITIAL_SLOTS);
  private queueNext = new Int32Array(INITIAL_SLOTS);
  /** One expiry queue per distinct TTL: its front (oldest) and back slots. */
  private readonly queues: { ttl: number; front: number; back: number }[] = [];
  private readonly queueByTtl = new Map<number, number>();
  private freeSlots: number[] = [];
  private nextSlot = 0;
  private bytes = 0;
  private readonly reclaimTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: StoreDeps,
    private readonly options: MemoryStoreOptions = {
      maxCounters: DEFAULT_MEMORY_MAX_COUNTERS,
      maxBytes: DEFAULT_MEMORY_MAX_BYTES,
    },
  ) {
    this.reclaimTimer = setInterval(
      () => this.reclaimExpired(this.deps.now(), RECLAIM_PER_TICK),
      RECLAIM_TICK_MS,
    ).unref();
  }

  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<HitResults> {
    return Promise.resolve(this.hitNow(hits, options, this.deps.now() * 1000));
  }

  hitNow(
    hits: readonly CounterHit[],
    options: { stopIncrementWhenOverLimit: boolean },
    nowMs: number,
  ): HitResults {
    const now = Math.floor(nowMs / 1000);
    this.reclaimExpired(now, hits.length + RECLAIM_PER_CALL);
    const results: HitResults = new Array<number>(hits.length);
    // Rule 11: once one counter of the request is over, only the over counters advance.
    const stop = options.stopIncrementWhenOverLimit && this.anyWouldExceed(hits, nowMs);
    for (let i = 0; i < hits.length; i++) {
      const hit = hits[i] as CounterHit;
      const addend = stop && !this.wouldExceed(hit, nowMs) ? 0 : hit.addend;
      if (hit.algorithm === undefined) {
        results[i] = this.add(hit.key, addend, hit.divider, now);
        continue;
      }
      const answer = this.algorithmHit(hit.key, hit.algorithm, hit.limit, addend, nowMs, true);
      results[i] = answer.after;
      results[hits.length + i] = answer.resetMs;
    }
    return results;
  }

  get size(): number {
    return this.slots.size;
  }

  /** The bytes the live counters are accounted at (keys, bookkeeping), bounded by maxBytes. */
  get accountedBytes(): number {
    return this.bytes;
  }

  isHealthy(): boolean {
    return true;
  }

  onHealthChange(): void {
    // An in-process store is never unreachable, so its health never changes.
  }

  close(): Promise<void> {
    clearInterval(this.reclaimTimer);
    this.slots.clear();
    this.keys = [];
    this.states = [];
    this.bytes = 0;
    return Promise.resolve();
  }

  private anyWouldExceed(hits: readonly CounterHit[], nowMs: number): boolean {
    for (const hit of hits) if (this.wouldExceed(hit, nowMs)) return true;
    return false;
  }

  private wouldExceed(hit: CounterHit, nowMs: number): boolean {
    if (hit.algorithm === undefined) {
      return this.current(hit.key, Math.floor(nowMs / 1000)) + hit.addend > hit.limit;
    }
    return this.algorithmHit(hit.key, hit.algorithm, hit.limit, hit.addend, nowMs, false).after > hit.limit;
  }

  /**
   * A hit on a sliding window or token bucket, counted (`count`) or only looked at (on a copy of
   * the state). A slot's expiry is its last renewal plus a TTL fixed per limit, so the expiry
   * queues stay in order: a sliding window is renewed for two windows when a hit is counted in a
   * window its expiry does not cover to the end of the next one; a bucket for the time it takes
   * to fill up from empty, at each take. The extra second covers the rounding to whole seconds.
   */
  private algorithmHit(
    key: string,
    params: AlgorithmParams,
    limit: number,
    addend: number,
    nowMs: number,
    count: boolean,
  ): SlidingWindowAnswer | TokenBucketAnswer {
    const now = Math.floor(nowMs / 1000);
    let slot = this.slots.get(key);
    if (slot !== undefined && (this.expiries[slot] as number) <= now) {
      this.release(slot);
      slot = undefined;
    }
    const stored = slot === undefined ? undefined : this.states[slot];
    // A hit, refused or not, makes its state the most recently used one.
    if (count && slot !== undefined && slot !== this.mostRecent) {
      this.unlinkRecent(slot);
      this.linkMostRecent(slot);
    }
    const { windowMs } = params;
    if (params.kind === 'sliding_window') {
      const kept = stored as SlidingWindowState | undefined;
      const state =
        kept && count
          ? kept
          : { start: kept?.start ?? nowMs, current: kept?.current ?? 0, previous: kept?.previous ?? 0 };
      rollSlidingWindow(state, nowMs, windowMs);
      const answer = slidingWindowHit(state, nowMs, windowMs, addend, count);
      // Kept while it weighs in an estimate: up to the end of the window after its own.
      const needed =
        slot === undefined ||
        (this.expiries[slot] as number) <= Math.floor((state.start + 2 * windowMs - 1) / 1000);
      if (count && addend > 0 && needed) {
        this.keepState(key, slot, state, Math.ceil((2 * windowMs) / 1000) + 1, now);
      }
      return answer;
    }
    const kept = stored as TokenBucketState | undefined;
    const state = kept && count ? kept : { debt: kept?.debt ?? 0, updatedAt: kept?.updatedAt ?? nowMs };
    refillTokenBucket(state, nowMs, params.rate);
    const debt = state.debt;
    const answer = tokenBucketHit(state, { windowMs, rate: params.rate, burst: limit }, addend, count);
    if (state.debt > debt) {
      this.keepState(
        key,
        slot,
        state,
        Math.ceil(Math.ceil((limit * windowMs) / params.rate) / 1000) + 1,
        now,
      );
    }
    return answer;
  }

  /** Stores a state in a new slot, or gives its slot the new expiry (re-queued, so queues stay in order). */
  private keepState(
    key: string,
    slot: number | undefined,
    state: SlidingWindowState | TokenBucketState,
    ttlSeconds: number,
    now: number,
  ): void {
    if (slot === undefined) {
      this.states[this.allocate(key, ttlSeconds, now, STATE_OVERHEAD_BYTES)] = state;
      return;
    }
    this.dequeue(slot);
    this.expiries[slot] = now + ttlSeconds;
    this.enqueue(slot, ttlSeconds);
  }

  private current(key: string, now: number): number {
    const slot = this.slots.get(key);
    if (slot === undefined || (this.expiries[slot] as number) <= now) return 0;
    return this.counts[slot] as number;
  }

  private add(key: string, addend: number, ttlSeconds: number, now: number): number {
    let slot = this.slots.get(key);
    if (slot !== undefined && (this.expiries[slot] as number) <= now) {
      this.release(slot);
      slot = undefined;
    }
    if (slot === undefined) {
      slot = this.allocate(key, ttlSeconds, now);
    } else if (slot !== this.mostRecent) {
      this.unlinkRecent(slot);
      this.linkMostRecent(slot);
    }
    const after = (this.counts[slot] as number) + addend;
    this.counts[slot] = after;
    return after;
  }

  private allocate(key: string, ttlSeconds: number, now: number, extraBytes = 0): number {
    // Cache keys are concatenated ropes; a flat copy costs about 60 MB less per million keys.
    const flat = flatten(key);
    const cost = counterCost(flat) + extraBytes;
    while (
      this.slots.size > 0 &&
      (this.slots.size >= this.options.maxCounters || this.bytes + cost > this.options.maxBytes)
    ) {
      this.evictOne(now);
    }
    let slot = this.freeSlots.pop();
    if (slot === undefined) {
      slot = this.nextSlot++;
      if (slot >= this.counts.length) this.grow();
    }
    this.slots.set(flat, slot);
    this.keys[slot] = flat;
    this.bytes += cost;
    this.counts[slot] = 0;
    // The key holds its window start, so it is never used after its window: no refresh needed.
    this.expiries[slot] = now + ttlSeconds;
    this.linkMostRecent(slot);
    this.enqueue(slot, ttlSeconds);
    return slot;
  }

  /** Makes room for one counter: an expired one if there is any, else the least recently used. */
  private evictOne(now: number): void {
    const expired = this.nextExpired(now);
    if (expired !== NONE) {
      this.release(expired);
      return;
    }
    this.release(this.leastRecent);
    this.deps.stats.inc('ratelimit.memory.evictions');
  }

  /** Releases up to `budget` expired counters, oldest expiry first. */
  private reclaimExpired(now: number, budget: number): void {
    for (let released = 0; released < budget; released++) {
      const slot = this.nextExpired(now);
      if (slot === NONE) return;
      this.release(slot);
    }
  }

  private nextExpired(now: number): number {
    for (const queue of this.queues) {
      if (queue.front !== NONE && (this.expiries[queue.front] as number) <= now) return queue.front;
    }
    return NONE;
  }

  private release(slot: number): void {
    const key = this.keys[slot] as string;
    this.slots.delete(key);
    this.keys[slot] = '';
    // The cost is worked out again rather than kept: 4 bytes a counter less.
    this.bytes -= counterCost(key) + (this.states[slot] === undefined ? 0 : STATE_OVERHEAD_BYTES);
    this.states[slot] = undefined;
    this.unlinkRecent(slot);
    this.dequeue(slot);
    this.freeSlots.push(slot);
  }

  private linkMostRecent(slot: number): void {
    this.recentPrev[slot] = NONE;
    this.recentNext[slot] = this.mostRecent;
    if (this.mostRecent !== NONE) this.recentPrev[this.mostRecent] = slot;
    else this.leastRecent = slot;
    this.mostRecent = slot;
  }

  private unlinkRecent(slot: number): void {
    const prev = this.recentPrev[slot] as number;
    const next = this.recentNext[slot] as number;
    if (prev !== NONE) this.recentNext[prev] = next;
    else this.mostRecent = next;
    if (next !== NONE) this.recentPrev[next] = prev;
    else this.leastRecent = prev;
  }

  private enqueue(slot: number, ttl: number): void {
    let index = this.queueByTtl.get(ttl);
    if (index === undefined) {
      // Past 65,535 window lengths (a config no one writes), the rest share the last queue,
      // whose order is then only roughly by expiry: expired counters there may wait longer.
      index = Math.min(this.queues.length, MAX_QUEUE_INDEX);
      if (index === this.queues.length) this.queues.push({ ttl, front: NONE, back: NONE });
      this.queueByTtl.set(ttl, index);
    }
    const queue = this.queues[index] as { front: number; back: number };
    this.queueOf[slot] = index;
    this.queueNext[slot] = NONE;
    this.queuePrev[slot] = queue.back;
    if (queue.back !== NONE) this.queueNext[queue.back] = slot;
    else queue.front = slot;
    queue.back = slot;
  }

  private dequeue(slot: number): void {
    const queue = this.queues[this.queueOf[slot] as number] as { front: number; back: number };
    const prev = this.queuePrev[slot] as number;
    const next = this.queueNext[slot] as number;
    if (prev !== NONE) this.queueNext[prev] = next;
    else queue.front = next;
    if (next !== NONE) this.queuePrev[next] = prev;
    else queue.back = prev;
  }

  private grow(): void {
    const size = this.counts.length * 2;
    this.counts = grown(this.counts, new Float64Array(size));
    this.expiries = grown(this.expiries, new Uint32Array(size));
    this.recentPrev = grown(this.recentPrev, new Int32Array(size));
    this.recentNext = grown(this.recentNext, new Int32Array(size));
    this.queueOf = grown(this.queueOf, new Uint16Array(size));
    this.queuePrev = grown(this.queuePrev, new Int32Array(size));
    this.queueNext = grown(this.queueNext, new Int32Array(size));
  }
}

function grown<T extends Float64Array | Uint32Array | Int32Array | Uint16Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}

/** V8 stores a string with only Latin-1 characters at one byte each, any other at two. */
const TWO_BYTE = /[\u0100-\uffff]/;

function counterCost(key: string): number {
  return COUNTER_OVERHEAD_BYTES + (TWO_BYTE.test(key) ? 2 : 1) * key.length;
}
