/**
 * The commands of one request for one Redis instance: either INCRBY + EXPIRE per key, or (for
 * STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT's first phase) GET per key. Arrays, not objects per
 * key, to keep the hot path light.
 */
export interface CommandBatch {
  readonly kind: 'increment' | 'get';
  readonly keys: readonly string[];
  /** increment only */
  readonly addends: readonly number[];
  /** increment only: EXPIRE seconds */
  readonly ttls: readonly number[];
}

/** Number of Redis commands the batch sends. */
export function commandCount(batch: CommandBatch): number {
  return batch.kind === 'increment' ? batch.keys.length * 2 : batch.keys.length;
}

/**
 * The batch's commands in RESP, the wire form of the lean connection: bulk strings carry their
 * byte length, so a key may hold any character.
 */
export function encodeBatch(batch: CommandBatch): string {
  const { keys } = batch;
  let out = '';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    const keyBulk = `$${Buffer.byteLength(key)}\r\n${key}\r\n`;
    if (batch.kind === 'get') {
      out += `*2\r\n$3\r\nGET\r\n${keyBulk}`;
      continue;
    }
    const addend = String(batch.addends[i]);
    const ttl = String(batch.ttls[i]);
    out += `*3\r\n$6\r\nINCRBY\r\n${keyBulk}$${addend.length}\r\n${addend}\r\n`;
    out += `*3\r\n$6\r\nEXPIRE\r\n${keyBulk}$${ttl.length}\r\n${ttl}\r\n`;
  }
  return out;
}

/** One command in RESP. */
export function encodeCommand(args: readonly string[]): string {
  let out = `*${args.length}\r\n`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return out;
}

/** INCRBY gives a number; GET gives a string or null (a missing key counts 0). */
export function toCount(value: unknown): number {
  if (typeof value === 'number') return value;
  if (value === null || value === undefined) return 0;
  const parsed = Number(value);
  return Number.isFinite(parsed) ? parsed : 0;
}
