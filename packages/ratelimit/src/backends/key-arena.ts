/** A record's header: the slot it belongs to (DEAD once removed) and the bytes after the header. */
const HEADER_BYTES = 8;
/**
 * Records are a multiple of this, so keys a few characters apart in length (a number with one more
 * digit) take the same room and one can go where another was.
 */
const RECORD_ALIGN = 8;
const DEAD = -1;
/** Set in a slot's stored length when its key is kept as UTF-16 (two bytes a character). */
const WIDE = 0x80000000;

/**
 * The memory store's keys, as bytes in one buffer outside the JavaScript heap: a key kept as a
 * string would be a heap object, and the strings of evicted keys stay in V8's old space as garbage
 * until a full collection, so a flood of unique keys grew the process to 2.3–5× MEMORY_MAX_BYTES
 * (bench/memory-bound.ts). Bytes in a buffer are no garbage, and the buffer is reserved at its
 * capacity but only its touched pages are resident, so the process grows with what is stored.
 *
 * A log: a key is appended as a record (header, then one byte a character when every character is
 * below U+0100, else two); a removed record is marked dead; `compact` slides the live records down
 * over the dead ones. The last record removed is a hole the next key takes when it fits: a store
 * that is full evicts one key for each new one, and keys of one deployment are of a few lengths,
 * so the arena is reused in place and seldom packed. Each slot keeps where its record starts and
 * its key's length.
 */
export class KeyArena {
  private readonly bytes: Uint8Array;
  /** `bytes` as a Buffer, for its native decoding. */
  private readonly text: Buffer;
  private starts: Int32Array;
  /** Per slot: the key's length in characters, with WIDE set for a two-byte key. */
  private lengths: Uint32Array;
  private end = 0;
  private deadBytes = 0;
  /** The last record removed (its header's offset and whole size), while nothing took it; -1 if none. */
  private holeAt = -1;
  private holeBytes = 0;

  constructor(capacityBytes: number, slotCapacity: number) {
    this.bytes = new Uint8Array(capacityBytes);
    this.text = Buffer.from(this.bytes.buffer, 0, capacityBytes);
    this.starts = new Int32Array(slotCapacity);
    this.lengths = new Uint32Array(slotCapacity);
  }

  /** Bytes from the start of the buffer to the end of the last record, dead records included. */
  get usedBytes(): number {
    return this.end;
  }

  /** Bytes of records removed but not yet compacted away. */
  get reclaimableBytes(): number {
    return this.deadBytes;
  }

  /** The bytes `key` takes as a record. */
  static recordBytes(key: string): number {
    const payload = isNarrow(key) ? key.length : 2 * key.length;
    return Math.ceil((HEADER_BYTES + payload) / RECORD_ALIGN) * RECORD_ALIGN;
  }

  /** Whether a record of `recordBytes` goes where the last removed one was, so the arena does not reach further. */
  fitsInHole(recordBytes: number): boolean {
    return this.holeAt >= 0 && this.holeBytes >= recordBytes;
  }

  /** Puts `key` as `slot`'s record in the hole if it fits, else at the end; the caller has checked the room. */
  add(slot: number, key: string): void {
    const bytes = this.bytes;
    const length = key.length;
    const narrow = isNarrow(key);
    const recordBytes = KeyArena.recordBytes(key);
    let at: number;
    let record: number;
    if (this.fitsInHole(recordBytes)) {
      at = this.holeAt;
      record = this.holeBytes;
      this.deadBytes -= record;
      this.holeAt = -1;
    } else {
      at = this.end;
      record = recordBytes;
      this.end += record;
    }
    writeInt32(bytes, at, slot);
    writeInt32(bytes, at + 4, record - HEADER_BYTES);
    at += HEADER_BYTES;
    this.starts[slot] = at;
    if (narrow) {
      for (let i = 0; i < length; i++) bytes[at + i] = key.charCodeAt(i);
      this.lengths[slot] = length;
    } else {
      for (let i = 0; i < length; i++) {
        const c = key.charCodeAt(i);
        bytes[at + 2 * i] = c & 0xff;
        bytes[at + 2 * i + 1] = c >>> 8;
      }
      this.lengths[slot] = (length | WIDE) >>> 0;
    }
  }

  /** Marks `slot`'s record dead; its bytes come back at the next `compact`. */
  remove(slot: number): void {
    const start = this.starts[slot] as number;
    writeInt32(this.bytes, start - HEADER_BYTES, DEAD);
    this.holeAt = start - HEADER_BYTES;
    this.holeBytes = HEADER_BYTES + readInt32(this.bytes, start - 4);
    this.deadBytes += this.holeBytes;
  }

  /** Whether `slot`'s key is `key`. */
  equals(slot: number, key: string): boolean {
    const stored = this.lengths[slot] as number;
    const length = key.length;
    const bytes = this.bytes;
    const at = this.starts[slot] as number;
    // A one-byte key is read out as a string and compared natively: a loop of charCodeAt over a
    // concatenated key (as cache keys are) cost three times as much (bench/key-lookup.ts).
    if (stored === length) return this.text.toString('latin1', at, at + length) === key;
    if (stored !== (length | WIDE) >>> 0) return false;
    for (let i = 0; i < length; i++) {
      if (((bytes[at + 2 * i] as number) | ((bytes[at + 2 * i + 1] as number) << 8)) !== key.charCodeAt(i)) {
        return false;
      }
    }
    return true;
  }

  /** `slot`'s key as a string (a rehash under a new hash key, tests). */
  keyOf(slot: number): string {
    const stored = this.lengths[slot] as number;
    const view = Buffer.from(
      this.bytes.buffer,
      this.starts[slot] as number,
      (stored & ~WIDE) * ((stored & WIDE) === 0 ? 1 : 2),
    );
    return view.toString((stored & WIDE) === 0 ? 'latin1' : 'utf16le');
  }

  /** Slides the live records down over the dead ones, in order: O(used bytes). */
  compact(): void {
    const bytes = this.bytes;
    let to = 0;
    for (let from = 0; from < this.end; ) {
      const slot = readInt32(bytes, from);
      const size = HEADER_BYTES + readInt32(bytes, from + 4);
      if (slot !== DEAD) {
        if (to !== from) bytes.copyWithin(to, from, from + size);
        this.starts[slot] = to + HEADER_BYTES;
        to += size;
      }
      from += size;
    }
    this.end = to;
    this.deadBytes = 0;
    this.holeAt = -1;
  }

  /** Drops every record. */
  clear(): void {
    this.end = 0;
    this.deadBytes = 0;
    this.holeAt = -1;
  }

  /** Makes room for slot numbers below `slotCapacity`. */
  growSlots(slotCapacity: number): void {
    const starts = new Int32Array(slotCapacity);
    starts.set(this.starts);
    this.starts = starts;
    const lengths = new Uint32Array(slotCapacity);
    lengths.set(this.lengths);
    this.lengths = lengths;
  }
}

/** Whether every character is below U+0100, so the key is kept at one byte a character. */
function isNarrow(key: string): boolean {
  for (let i = 0; i < key.length; i++) if (key.charCodeAt(i) > 0xff) return false;
  return true;
}

function writeInt32(bytes: Uint8Array, at: number, value: number): void {
  bytes[at] = value;
  bytes[at + 1] = value >>> 8;
  bytes[at + 2] = value >>> 16;
  bytes[at + 3] = value >>> 24;
}

function readInt32(bytes: Uint8Array, at: number): number {
  return (
    (bytes[at] as number) |
    ((bytes[at + 1] as number) << 8) |
    ((bytes[at + 2] as number) << 16) |
    ((bytes[at + 3] as number) << 24)
  );
}
