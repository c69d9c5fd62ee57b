import type { AlgorithmParams } from '../protocol/algorithm.js';
import {
  rollSlidingWindow,
  type SlidingWindowAnswer,
  type SlidingWindowState,
  slidingWindowHit,
} from './algorithms/sliding-window.js';
import {
  refillTokenBucket,
  type TokenBucketAnswer,
  type TokenBucketState,
  tokenBucketHit,
} from './algorithms/token-bucket.js';
import { KeyArena } from './key-arena.js';
import { KeyIndex } from './key-index.js';
import type { CounterHit, CounterStore, HitResults, StoreDeps } from './store.js';

export interface MemoryStoreOptions {
  /** Most live counters kept (MEMORY_MAX_COUNTERS). */
  readonly maxCounters: number;
  /** Most bytes the counters may take, keys and bookkeeping included (MEMORY_MAX_BYTES). */
  readonly maxBytes: number;
}

export const DEFAULT_MEMORY_MAX_COUNTERS = 2_000_000;
export const DEFAULT_MEMORY_MAX_BYTES = 256 * 1024 * 1024;
/** The most MEMORY_MAX_BYTES may be: the key arena is one buffer of that size, its offsets 31-bit. */
export const MEMORY_MAX_BYTES_LIMIT = 2 * 1024 * 1024 * 1024;
/**
 * What a slot costs in the typed arrays, every one reserved at the store's slot capacity and
 * resident once a slot number is first used: the count (8), expiry (4), use mark (1), the two
 * expiry queue links (8), the key's hash (4), where its record starts and its length (8), its place
 * on the free list (4) and its state's number (4). test/memory-cost.test.ts measures it.
 */
export const SLOT_BYTES = 41;
/**
 * What a sliding window's or token bucket's state adds: two numbers of the state pool (16) and its
 * place on the pool's free list (4). test/memory-cost.test.ts measures it.
 */
export const STATE_BYTES = 20;
/** The least a counter takes: its slot, its table positions at half load (8), a one-byte key's record. */
const MIN_COUNTER_BYTES = SLOT_BYTES + 8 + KeyArena.recordBytes('x');
/** Slots for the expiry queues' sentinels (one per distinct TTL) besides the counters'. */
const SENTINEL_SLOTS = 64;
/**
 * The key arena is packed once its removed records are this share of it, so packing (a pass over
 * the arena) costs O(1) per byte given back.
 */
const COMPACT_SHARE = 1 / 8;
/** Expired counters reclaimed per call beyond the call's own new keys, so reclaiming keeps pace. */
const RECLAIM_PER_CALL = 4;
/** Expired counters reclaimed per timer tick, so an idle store gives its memory back too. */
const RECLAIM_PER_TICK = 10_000;
const RECLAIM_TICK_MS = 1000;
const NONE = -1;
/** A slot's use: free, a counter, or a counter used since the clock hand last passed it. */
const FREE = 0;
const LIVE = 1;
const REFERENCED = 2;

/**
 * In-process expiring counters for a single instance.
 *
 * Layout: a key index (key-index.ts) from key to a slot number; per slot, in typed arrays, the
 * count, the expiry, a use mark for eviction, and the links of its expiry queue:
 * - eviction is CLOCK (second chance): a hit marks its slot as used; a hand sweeps the slots,
 *   clears the marks it passes and evicts the first counter without one, so a counter asked
 *   about at least once per sweep is never evicted. One byte a slot, where an exact
 *   least-recently-used list took eight (two links);
 * - one queue per TTL in creation order, a doubly linked list through the slots. A counter's
 *   expiry is its creation time plus its TTL, so each queue is also in expiry order and its
 *   front is the next counter to expire: expired counters are found without scanning live ones,
 *   and always go before a live counter is evicted.
 * So reclaiming an expired counter and touching one are each O(1), and evicting one is O(1)
 * amortized (O(number of distinct TTLs) to look at the queue fronts, a handful: one per window
 * length in the config).
 */
export class MemoryStore implements CounterStore {
  readonly kind = 'memory';
  private readonly index: KeyIndex;
  /**
   * Per slot, its sliding window's or token bucket's state number in statePool plus one (0 for a
   * fixed window: zero-filled pages stay unresident until used). A state is its counts entry (the current window's count, the bucket's debt) and two
   * numbers of the pool (the window's start and the previous window's count; the bucket's time).
   */
  private stateOf: Int32Array;
  private statePool: Float64Array;
  /** A stack of the free state numbers below stateCount, the most states in use so far. */
  private stateFree: Int32Array;
  private stateFreeCount = 0;
  private stateCount = 0;
  /** A state read out of the typed arrays, worked on by the algorithms' arithmetic, then written back. */
  private readonly slidingScratch: SlidingWindowState = { start: 0, current: 0, previous: 0 };
  private readonly bucketScratch: TokenBucketState = { debt: 0, updatedAt: 0 };
  private counts: Float64Array;
  private expiries: Uint32Array;
  private uses: Uint8Array;
  /** The clock hand: the next slot eviction looks at. */
  private hand = 0;
  private queuePrev: Int32Array;
  private queueNext: Int32Array;
  /**
   * One expiry queue per distinct TTL, each a circular list through a sentinel slot of its own
   * (never a counter, so the clock hand passes it as free): a slot leaves its queue without
   * knowing which one it is in, so no per-slot queue number is kept.
   */
  private readonly queues: number[] = [];
  private readonly queueByTtl = new Map<number, number>();
  /** A stack of the slot numbers below nextSlot that are free. */
  private freeSlots: Int32Array;
  private freeCount = 0;
  private nextSlot = 0;
  /** The farthest the key arena's records have reached: its pages up to there are resident. */
  private keyBytesReached = 0;
  private readonly reclaimTimer: NodeJS.Timeout;

  constructor(
    private readonly deps: StoreDeps,
    private readonly options: MemoryStoreOptions = {
      maxCounters: DEFAULT_MEMORY_MAX_COUNTERS,
      maxBytes: DEFAULT_MEMORY_MAX_BYTES,
    },
  ) {
    if (options.maxBytes > MEMORY_MAX_BYTES_LIMIT) {
      throw new RangeError(
        `maxBytes (MEMORY_MAX_BYTES) ${options.maxBytes} is above ${MEMORY_MAX_BYTES_LIMIT} (2 GiB)`,
      );
    }
    // Reserved at the most the bounds allow; a page becomes resident when first used, so the
    // process grows with what is stored and no array is copied to grow.
    const slots =
      Math.min(options.maxCounters, Math.floor(options.maxBytes / MIN_COUNTER_BYTES)) + SENTINEL_SLOTS;
    this.index = new KeyIndex(slots, options.maxBytes);
    this.counts = new Float64Array(slots);
    this.expiries = new Uint32Array(slots);
    this.uses = new Uint8Array(slots);
    this.queuePrev = new Int32Array(slots);
    this.queueNext = new Int32Array(slots);
    this.freeSlots = new Int32Array(slots);
    this.stateOf = new Int32Array(slots);
    this.statePool = new Float64Array(2 * slots);
    this.stateFree = new Int32Array(slots);
    this.reclaimTimer = setInterval(
      () => this.reclaimExpired(Math.floor(this.deps.now() / 1000), RECLAIM_PER_TICK),
      RECLAIM_TICK_MS,
    ).unref();
  }

  hit(hits: readonly CounterHit[], options: { stopIncrementWhenOverLimit: boolean }): Promise<HitResults> {
    return Promise.resolve(this.hitAt(hits, options, this.deps.now()));
  }

  /**
   * `hit`'s work at a given clock reading, answered at once; tests and the counters bench choose
   * the time. The limiter goes through `hit` like for every store: answering it without a promise
   * bought nothing per request (2026-11-25, quiet machine: 43.5 µs of server CPU per gRPC request
   * against 41.6 µs through the promise), so that path was removed.
   */
  hitAt(
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
    return this.index.size;
  }

  /**
   * The bytes the store holds resident, bounded by maxBytes: every slot number used so far, the
   * lookup table, the key arena as far as its records have reached, and the algorithms' states.
   */
  get accountedBytes(): number {
    return this.residentBytes(0, 0, 0, 0);
  }

  isHealthy(): boolean {
    return true;
  }

  onHealthChange(): void {
    // An in-process store is never unreachable, so its health never changes.
  }

  close(): Promise<void> {
    clearInterval(this.reclaimTimer);
    this.index.clear();
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
    let slot: number | undefined = this.index.find(key);
    if (slot === NONE) {
      slot = undefined;
    } else if ((this.expiries[slot] as number) <= now) {
      this.release(slot);
      slot = undefined;
    }
    const stateAt = slot === undefined ? NONE : (this.stateOf[slot] as number) - 1;
    // A hit, refused or not, marks its state as used.
    if (count && slot !== undefined) this.uses[slot] = REFERENCED;
    const { windowMs } = params;
    const pool = this.statePool;
    if (params.kind === 'sliding_window') {
      const state = this.slidingScratch;
      if (slot !== undefined && stateAt !== NONE) {
        state.start = pool[2 * stateAt] as number;
        state.previous = pool[2 * stateAt + 1] as number;
        state.current = this.counts[slot] as number;
      } else {
        state.start = nowMs;
        state.current = 0;
        state.previous = 0;
      }
      rollSlidingWindow(state, nowMs, windowMs);
      const answer = slidingWindowHit(state, nowMs, windowMs, addend, count);
      // Kept while it weighs in an estimate: up to the end of the window after its own.
      const needed =
        slot === undefined ||
        (this.expiries[slot] as number) <= Math.floor((state.start + 2 * windowMs - 1) / 1000);
      if (count && addend > 0 && needed) {
        slot = this.keepState(key, slot, Math.ceil((2 * windowMs) / 1000) + 1, now);
      }
      if (count && slot !== undefined) {
        const at = (this.stateOf[slot] as number) - 1;
        pool[2 * at] = state.start;
        pool[2 * at + 1] = state.previous;
        this.counts[slot] = state.current;
      }
      return answer;
    }
    const state = this.bucketScratch;
    if (slot !== undefined && stateAt !== NONE) {
      state.debt = this.counts[slot] as number;
      state.updatedAt = pool[2 * stateAt] as number;
    } else {
      state.debt = 0;
      state.updatedAt = nowMs;
    }
    refillTokenBucket(state, nowMs, params.rate);
    const debt = state.debt;
    const answer = tokenBucketHit(state, { windowMs, rate: params.rate, burst: limit }, addend, count);
    if (state.debt > debt) {
      slot = this.keepState(
        key,
        slot,
        Math.ceil(Math.ceil((limit * windowMs) / params.rate) / 1000) + 1,
        now,
      );
    }
    if (count && slot !== undefined) {
      this.counts[slot] = state.debt;
      pool[2 * ((this.stateOf[slot] as number) - 1)] = state.updatedAt;
    }
    return answer;
  }

  /**
   * A new slot with a state for `key`, or its slot given the new expiry (re-queued, so queues stay
   * in order); returns the slot.
   */
  private keepState(key: string, slot: number | undefined, ttlSeconds: number, now: number): number {
    if (slot === undefined) {
      const created = this.allocate(key, ttlSeconds, now, 1);
      const state =
        this.stateFreeCount > 0 ? (this.stateFree[--this.stateFreeCount] as number) : this.stateCount++;
      this.stateOf[created] = state + 1;
      return created;
    }
    this.dequeue(slot);
    this.expiries[slot] = now + ttlSeconds;
    this.enqueue(slot, ttlSeconds);
    return slot;
  }

  private current(key: string, now: number): number {
    const slot = this.index.find(key);
    if (slot === NONE || (this.expiries[slot] as number) <= now) return 0;
    return this.counts[slot] as number;
  }

  private add(key: string, addend: number, ttlSeconds: number, now: number): number {
    let slot = this.index.find(key);
    if (slot !== NONE && (this.expiries[slot] as number) <= now) {
      this.release(slot);
      slot = NONE;
    }
    if (slot === NONE) slot = this.allocate(key, ttlSeconds, now);
    else this.uses[slot] = REFERENCED;
    const after = (this.counts[slot] as number) + addend;
    this.counts[slot] = after;
    return after;
  }

  private allocate(key: string, ttlSeconds: number, now: number, withState: 0 | 1 = 0): number {
    this.makeRoom(KeyArena.recordBytes(key), withState, now);
    const slot = this.freeCount > 0 ? (this.freeSlots[--this.freeCount] as number) : this.newSlot();
    this.index.insert(key, slot);
    this.keyBytesReached = Math.max(this.keyBytesReached, this.index.keyBytesUsed);
    this.counts[slot] = 0;
    // The key holds its window start, so it is never used after its window: no refresh needed.
    this.expiries[slot] = now + ttlSeconds;
    // Not marked as used: a key asked about once goes at the hand's next pass (a flood of
    // one-off keys evicts itself), one asked about again before then stays a turn longer.
    this.uses[slot] = LIVE;
    this.enqueue(slot, ttlSeconds);
    return slot;
  }

  /**
   * Evicts until one more counter fits both bounds: the count, and the resident bytes with its key's
   * record (`recordBytes`) and, with `withState`, a state. The arena is packed rather than reaching further when
   * enough of it is removed keys; when it must reach further and that would pass the bound, counters
   * are evicted until packing gives back enough.
   */
  private makeRoom(recordBytes: number, withState: 0 | 1, now: number): void {
    const index = this.index;
    for (;;) {
      const inHole = index.keyFitsInHole(recordBytes);
      const reclaimable = index.keyBytesReclaimable;
      if (
        !inHole &&
        index.keyBytesUsed + recordBytes > this.keyBytesReached &&
        reclaimable > 0 &&
        reclaimable >= index.keyBytesUsed * COMPACT_SHARE
      ) {
        index.compactKeys();
        continue;
      }
      const fits =
        index.size < this.options.maxCounters &&
        this.residentBytes(
          1,
          inHole ? 0 : recordBytes,
          this.freeCount > 0 ? 0 : 1,
          this.stateFreeCount > 0 ? 0 : withState,
        ) <= this.options.maxBytes;
      // With nothing left to evict, a key too large for the bound on its own is kept all the same.
      if (fits || index.size === 0) return;
      this.evictOne(now);
    }
  }

  /** accountedBytes, with `moreKeys` keys filed, `keyBytes` more of arena, `newSlots` and `newStates` more. */
  private residentBytes(moreKeys: 0 | 1, keyBytes: number, newSlots: number, newStates: number): number {
    return (
      (this.nextSlot + newSlots) * SLOT_BYTES +
      this.index.tableBytes(moreKeys) +
      Math.max(this.keyBytesReached, this.index.keyBytesUsed + keyBytes) +
      (this.stateCount + newStates) * STATE_BYTES
    );
  }

  /**
   * Makes room for one counter: an expired one if there is any, else one not used since the clock
   * hand last passed it (CLOCK, the second-chance approximation of least recently used). The hand
   * sweeps the slots in order, clearing each used mark it passes, and evicts the first counter
   * without one; over a sweep that is O(1) a call.
   */
  private evictOne(now: number): void {
    const expired = this.nextExpired(now);
    if (expired !== NONE) {
      this.release(expired);
      return;
    }
    const uses = this.uses;
    for (;;) {
      const slot = this.hand;
      this.hand = slot + 1 < this.nextSlot ? slot + 1 : 0;
      const use = uses[slot] as number;
      if (use === REFERENCED) {
        uses[slot] = LIVE;
      } else if (use === LIVE) {
        this.release(slot);
        this.deps.stats.inc('ratelimit.memory.evictions');
        return;
      }
    }
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
    for (const sentinel of this.queues) {
      const front = this.queueNext[sentinel] as number;
      if (front !== sentinel && (this.expiries[front] as number) <= now) return front;
    }
    return NONE;
  }

  private release(slot: number): void {
    this.index.remove(slot);
    const state = this.stateOf[slot] as number;
    if (state !== 0) {
      this.stateFree[this.stateFreeCount++] = state - 1;
      this.stateOf[slot] = 0;
    }
    this.uses[slot] = FREE;
    this.dequeue(slot);
    this.freeSlots[this.freeCount++] = slot;
  }

  /** Puts `slot` at the back of its TTL's queue. */
  private enqueue(slot: number, ttl: number): void {
    let sentinel = this.queueByTtl.get(ttl);
    if (sentinel === undefined) {
      sentinel = this.newSlot();
      this.queuePrev[sentinel] = sentinel;
      this.queueNext[sentinel] = sentinel;
      this.queues.push(sentinel);
      this.queueByTtl.set(ttl, sentinel);
    }
    const back = this.queuePrev[sentinel] as number;
    this.queuePrev[slot] = back;
    this.queueNext[slot] = sentinel;
    this.queueNext[back] = slot;
    this.queuePrev[sentinel] = slot;
  }

  private dequeue(slot: number): void {
    const prev = this.queuePrev[slot] as number;
    const next = this.queueNext[slot] as number;
    this.queueNext[prev] = next;
    this.queuePrev[next] = prev;
  }

  private newSlot(): number {
    const slot = this.nextSlot++;
    if (slot >= this.counts.length) this.grow();
    return slot;
  }

  private grow(): void {
    const size = this.counts.length * 2;
    this.counts = grown(this.counts, new Float64Array(size));
    this.expiries = grown(this.expiries, new Uint32Array(size));
    this.uses = grown(this.uses, new Uint8Array(size));
    this.queuePrev = grown(this.queuePrev, new Int32Array(size));
    this.queueNext = grown(this.queueNext, new Int32Array(size));
    this.freeSlots = grown(this.freeSlots, new Int32Array(size));
    this.stateOf = grown(this.stateOf, new Int32Array(size));
    this.statePool = grown(this.statePool, new Float64Array(2 * size));
    this.stateFree = grown(this.stateFree, new Int32Array(size));
    this.index.growSlots(size);
  }
}

function grown<T extends Float64Array | Uint32Array | Int32Array | Uint8Array>(from: T, to: T): T {
  to.set(from as never);
  return to;
}
