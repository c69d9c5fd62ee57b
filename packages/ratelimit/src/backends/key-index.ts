import { randomBytes } from 'node:crypto';
import { KeyArena } from './key-arena.js';

const EMPTY = 0;
const MIN_TABLE = 1024;
/**
 * A probe this long at a load of at most 1/2 means the keys collide on purpose (random hashing
 * makes it vanishingly rare): the table is rehashed with a new secret key.
 */
const SUSPICIOUS_PROBE = 128;

/**
 * Key → slot lookup for the memory store: an open-addressing hash table (linear probing,
 * backward-shift deletion) of slot numbers in an Int32Array, with each slot's hash in a
 * slot-indexed array and its key in a KeyArena (bytes outside the heap, so no garbage when keys
 * go). A JavaScript Map costs 28–30 bytes an entry and still needs a slot → key array (8) to find
 * a key from the slot that eviction picks; this index costs 4 bytes of hash per slot and 4–16 of
 * table per key (8 at a million keys), and the arena is that slot → key array.
 *
 * The hash is keyed (HalfSipHash-1-3, a pseudo-random function of its key) with a secret random
 * key, so a client cannot choose keys that collide: the multiply-xor hash with a seed used before
 * has collisions a client can build for the seed in use. A probe that is long anyway gets a new key
 * and a rehash (at most once per table's worth of insertions, so the cost stays O(1) amortized).
 */
export class KeyIndex {
  private table = new Int32Array(MIN_TABLE);
  private mask = MIN_TABLE - 1;
  private count = 0;
  private k0 = randomWord();
  private k1 = randomWord();
  private insertsSinceReseed = 0;
  /** The last key `find` looked up and its hash: a miss is followed by the insert of that key. */
  private lastKey = '';
  private lastHash = 0;
  private readonly keys: KeyArena;
  /** Per slot: its key's hash. */
  private hashes: Uint32Array;

  constructor(slotCapacity: number, keyBytes: number) {
    this.hashes = new Uint32Array(slotCapacity);
    this.keys = new KeyArena(keyBytes, slotCapacity);
  }

  get size(): number {
    return this.count;
  }

  /**
   * The bytes of the lookup table, with `moreKeys` more filed (it doubles past half full). Resident:
   * keys land at random positions, so every page of it is touched.
   */
  tableBytes(moreKeys: 0 | 1): number {
    return (this.count + moreKeys) * 2 > this.table.length
      ? 2 * this.table.byteLength
      : this.table.byteLength;
  }

  /** Bytes from the start of the key arena to its last record, removed records included. */
  get keyBytesUsed(): number {
    return this.keys.usedBytes;
  }

  /** Bytes of removed keys' records that `compactKeys` gives back. */
  get keyBytesReclaimable(): number {
    return this.keys.reclaimableBytes;
  }

  /** Whether a key's record of `recordBytes` goes where a removed key was, so the arena does not reach further. */
  keyFitsInHole(recordBytes: number): boolean {
    return this.keys.fitsInHole(recordBytes);
  }

  /** Packs the keys' records, giving back the bytes of removed keys. */
  compactKeys(): void {
    this.keys.compact();
  }

  /** The slot of `key`, or -1. */
  find(key: string): number {
    const hash = hashString(key, this.k0, this.k1);
    this.lastKey = key;
    this.lastHash = hash;
    const table = this.table;
    const mask = this.mask;
    for (let at = hash & mask; ; at = (at + 1) & mask) {
      const entry = table[at] as number;
      if (entry === EMPTY) return -1;
      const slot = entry - 1;
      if (this.hashes[slot] === hash && this.keys.equals(slot, key)) return slot;
    }
  }

  /** Files `key` (not present) under `slot`. */
  insert(key: string, slot: number): void {
    if ((this.count + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    const hash = key === this.lastKey ? this.lastHash : hashString(key, this.k0, this.k1);
    this.keys.add(slot, key);
    this.hashes[slot] = hash;
    this.count++;
    this.insertsSinceReseed++;
    const probe = this.place(slot, hash);
    if (probe > SUSPICIOUS_PROBE && this.insertsSinceReseed >= this.count) {
      this.k0 = randomWord();
      this.k1 = randomWord();
      this.lastKey = '';
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
    this.keys.remove(slot);
    this.count--;
    if (this.count * 8 < this.table.length && this.table.length > MIN_TABLE) {
      this.rehash(this.table.length / 2);
    }
  }

  keyOf(slot: number): string {
    return this.keys.keyOf(slot);
  }

  /** Makes room for slot numbers below `slotCapacity`. */
  growSlots(slotCapacity: number): void {
    const hashes = new Uint32Array(slotCapacity);
    hashes.set(this.hashes);
    this.hashes = hashes;
    this.keys.growSlots(slotCapacity);
  }

  clear(): void {
    this.table = new Int32Array(MIN_TABLE);
    this.mask = MIN_TABLE - 1;
    this.count = 0;
    this.keys.clear();
    this.lastKey = '';
  }

  /** The farthest any key sits from its home position (a scan of the table; for tests). */
  longestProbe(): number {
    let longest = 0;
    for (let at = 0; at < this.table.length; at++) {
      const entry = this.table[at] as number;
      if (entry === EMPTY) continue;
      longest = Math.max(longest, (at - ((this.hashes[entry - 1] as number) & this.mask)) & this.mask);
    }
    return longest;
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
        // A rehash in place is a new key: the hashes change.
        hash = hashString(this.keys.keyOf(slot), this.k0, this.k1);
        this.hashes[slot] = hash;
      }
      this.place(slot, hash);
    }
  }
}

function randomWord(): number {
  return randomBytes(4).readInt32LE(0);
}

/** The `v1` tweak of keys hashed as UTF-16 (as SipHash-128 tweaks `v1` with 0xee). */
const WIDE = 0xee;

/**
 * HalfSipHash-1-3 (Aumasson and Bernstein's SipHash on 32-bit words, as Linux's hsiphash: one
 * compression round, three finalization rounds) under the secret 64-bit key (k0, k1), of the key
 * string's bytes: one byte a character when every character is below U+0100 (keys are nearly
 * always ASCII: four characters a word), else its UTF-16LE bytes (two a word) with `v1` tweaked,
 * so the two encodings never meet. 32-bit words keep it in JavaScript's int32 arithmetic
 * (SipHash's 64-bit words would be emulated in pairs).
 */
export function hashString(key: string, k0: number, k1: number): number {
  return halfSipHash(key, k0, k1, false);
}

/**
 * One loop for the message words, the last word and the finalization rounds, so the SipRound is
 * written once; the state stays in locals (an array for it cost 70 ns a 47-character key). Round r
 * takes word r of the message, the last word (the byte length's low byte on top, the bytes left
 * over below) is round `words`, and the three rounds after it take none.
 */
function halfSipHash(key: string, k0: number, k1: number, wide: boolean): number {
  let v0 = k0;
  let v1 = wide ? k1 ^ WIDE : k1;
  let v2 = 0x6c796765 ^ k0;
  let v3 = 0x74656462 ^ k1;
  const length = key.length;
  const charsPerWord = wide ? 2 : 4;
  const words = wide ? length >> 1 : length >> 2;
  for (let round = 0, i = 0; round < words + 4; round++) {
    let m = 0;
    if (round < words) {
      if (wide) {
        m = key.charCodeAt(i) | (key.charCodeAt(i + 1) << 16);
      } else {
        const c0 = key.charCodeAt(i);
        const c1 = key.charCodeAt(i + 1);
        const c2 = key.charCodeAt(i + 2);
        const c3 = key.charCodeAt(i + 3);
        if ((c0 | c1 | c2 | c3) > 0xff) return halfSipHash(key, k0, k1, true);
        m = c0 | (c1 << 8) | (c2 << 16) | (c3 << 24);
      }
      i += charsPerWord;
    } else if (round === words) {
      m = (wide ? length * 2 : length) << 24;
      for (let shift = 0; i < length; i++, shift += wide ? 16 : 8) {
        const c = key.charCodeAt(i);
        if (!wide && c > 0xff) return halfSipHash(key, k0, k1, true);
        m |= c << shift;
      }
    }
    v3 ^= m;
    v0 = (v0 + v1) | 0;
    v1 = (v1 << 5) | (v1 >>> 27);
    v1 ^= v0;
    v0 = (v0 << 16) | (v0 >>> 16);
    v2 = (v2 + v3) | 0;
    v3 = (v3 << 8) | (v3 >>> 24);
    v3 ^= v2;
    v0 = (v0 + v3) | 0;
    v3 = (v3 << 7) | (v3 >>> 25);
    v3 ^= v0;
    v2 = (v2 + v1) | 0;
    v1 = (v1 << 13) | (v1 >>> 19);
    v1 ^= v2;
    v2 = (v2 << 16) | (v2 >>> 16);
    v0 ^= m;
    if (round === words) v2 ^= 0xff;
  }
  return (v1 ^ v3) >>> 0;
}
