/**
 * The seeded multiply-xor (MurmurHash3's finalizer) the memory store's key index hashed with until
 * 2026-11-27: the attacked function of the collision test, and the yardstick of bench/key-lookup.ts.
 */
export function multiplyXor(key: string, seed: number): number {
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
