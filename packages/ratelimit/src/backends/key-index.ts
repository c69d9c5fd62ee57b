import { randomBytes } from 'node:crypto';

const EMPTY = 0;
const MIN_TABLE = 1024;
/**
 * A probe this long at a load of at most 1/2 means the keys collide on purpose (random hashing
 * makes it vanishingly rare): the table is rehashed with a new secret seed.
 */
const SUSPICIOUS_PROBE = 128;

/**
 * Key → slot lookup for the memory store: an open-addressing hash table (linear probing,
 * backward-shift deletion) of slot numbers in an Int32Array, with each slot's key and hash kept
 * in slot-indexed arrays. A JavaScript Map costs 28–30 bytes an entry and still needs a slot →
 * key array (8) to find a key from the slot that eviction picks; this index costs 4 bytes of
 * hash per slot and 4–16 of table per key (8 at a million keys), and is that slot → key array.
 *
 * The hash is seeded with a secret random value, so a client cannot choose keys that collide;
 * a probe that is long anyway gets a new seed and a rehash (at most once per table's worth of
 * insertions, so the cost stays O(1) amortized).
 */
export class KeyIndex {
  private table = new Int32Array(MIN_TABLE);
  private mask = MIN_TABLE - 1;
  private count = 0;
  private seed = randomSeed();
  private insertsSinceReseed = 0;
  /** Per slot: its key ('' when free) and the key's hash. */
  private keys: string[] = [];
  private hashes: Uint32Array;

  constructor(slotCapacity: number) {
    this.hashes = new Uint32Array(slotCapacity);
  }

  get size(): number {
    return this.count;
  }

  /** The slot of `key`, or -1. */
  find(key: string): number {
    const hash = hashString(key, this.seed);
    const table = this.table;
    const mask = this.mask;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = table[at] as number;
      if (entry === EMPTY) return -1;
      const slot = entry - 1;
      if (this.hashes[slot] === hash && this.keys[slot] === key) return slot;
    }
  }

  /** Files `key` (not present) under `slot`. */
  insert(key: string, slot: number): void {
    if ((this.count + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    const hash = hashString(key, this.seed);
    this.keys[slot] = key;
    this.hashes[slot] = hash;
    this.count++;
    this.insertsSinceReseed++;
    const probe = this.place(slot, hash);
    if (probe > SUSPICIOUS_PROBE && this.insertsSinceReseed >= this.count) {
      this.seed = randomSeed();
      this.rehash(this.table.length);
    }
  }

  /** Removes the key of `slot` (which must be filed). */
  remove(slot: number): void {
    const table = this.table;
    const mask = this.mask;
    const hashes = this.hashes;
    let hole = (hashes[slot] as number) & mask;
    while (table[hole] !== slot + 1) hole = (hole + 1) & mask;
    // Backward shift: pull each later entry of the run back into the hole unless that would put
    // it before its home position, so no tombstones are needed and lookups stay short.
    for (let at = (hole + 1) & mask; ; at = (at + 1) & mask) {
      const entry = table[at] as number;
      if (entry === EMPTY) break;
      const home = (hashes[entry - 1] as number) & mask;
      if (((at - home) & mask) >= ((at - hole) & mask)) {
        table[hole] = entry;
        hole = at;
      }
    }
    table[hole] = EMPTY;
    this.keys[slot] = '';
    this.count--;
    if (this.count * 8 < this.table.length && this.table.length > MIN_TABLE) {
      this.rehash(this.table.length / 2);
    }
  }

  keyOf(slot: number): string {
    return this.keys[slot] as string;
  }

  /** Makes room for slot numbers below `slotCapacity`. */
  growSlots(slotCapacity: number): void {
    const hashes = new Uint32Array(slotCapacity);
    hashes.set(this.hashes);
    this.hashes = hashes;
  }

  clear(): void {
    this.table = new Int32Array(MIN_TABLE);
    this.mask = MIN_TABLE - 1;
    this.count = 0;
    this.keys = [];
  }

  /** Puts `slot` in the first free position of its run; returns how far from home that was. */
  private place(slot: number, hash: number): number {
    const table = this.table;
    const mask = this.mask;
    let at = hash & mask;
    let probe = 0;
    while (table[at] !== EMPTY) {
      at = (at + 1) & mask;
      probe++;
    }
    table[at] = slot + 1;
    return probe;
  }

  private rehash(size: number): void {
    const old = this.table;
    this.table = new Int32Array(size);
    this.mask = size - 1;
    this.insertsSinceReseed = 0;
    for (let i = 0; i < old.length; i++) {
      const entry = old[i] as number;
      if (entry === EMPTY) continue;
      const slot = entry - 1;
      let hash = this.hashes[slot] as number;
      if (old.length === size) {
        // A rehash in place is a reseed: the hashes change.
        hash = hashString(this.keys[slot] as string, this.seed);
        this.hashes[slot] = hash;
      }
      this.place(slot, hash);
    }
  }
}

function randomSeed(): number {
  return randomBytes(4).readUInt32LE(0);
}

/** A seeded multiply-xor hash over UTF-16 code units, finished with murmur3's fmix32. */
export function hashString(key: string, seed: number): number {
  let h = seed ^ key.length;
  for (let i = 0; i < key.length; i++) {
    h = Math.imul(h ^ key.charCodeAt(i), 0x5bd1e995);
    h ^= h >>> 15;
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}
