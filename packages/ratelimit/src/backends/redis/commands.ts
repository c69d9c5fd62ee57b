import type { LuaScript } from './scripts.js';

/**
 * The commands of one request for one Redis instance: either INCRBY + EXPIRE per key, or (for
 * STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT's first phase) GET per key. A key with a script call
 * (a sliding window or token bucket) runs its script instead, counting or (in the first phase)
 * only looking. Arrays, not objects per key, to keep the hot path light.
 */
export interface CommandBatch {
  readonly kind: 'increment' | 'get';
  readonly keys: readonly string[];
  /** increment only */
  readonly addends: readonly number[];
  /** increment only: EXPIRE seconds */
  readonly ttls: readonly number[];
  /** Per key, the script to run on it instead; absent when no key has one. */
  readonly scripts?: readonly (ScriptCall | undefined)[] | undefined;
  /** Scripts go by EVAL with their text: the resend after Redis answered NOSCRIPT to EVALSHA. */
  readonly evalText?: boolean;
}

export interface ScriptCall {
  readonly script: LuaScript;
  /** ARGV, the count-or-look flag and the time included. */
  readonly args: readonly string[];
}

/**
 * What a script's key holds in the replies while Redis has not loaded the script (NOSCRIPT): the
 * store sends those keys again by EVAL. NaN, as no count is.
 */
export const NOT_LOADED = Number.NaN;

/** Number of Redis commands the batch sends. */
export function commandCount(batch: CommandBatch): number {
  const { keys, scripts } = batch;
  if (batch.kind === 'get' || !scripts) return batch.kind === 'increment' ? keys.length * 2 : keys.length;
  let count = 0;
  for (let i = 0; i < keys.length; i++) count += scripts[i] ? 1 : 2;
  return count;
}

/** How many replies the command(s) of key `i` get. */
export function repliesOf(batch: CommandBatch, i: number): number {
  return batch.kind === 'increment' && !batch.scripts?.[i] ? 2 : 1;
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
    const call = batch.scripts?.[i];
    if (call) {
      out += encodeScriptCall(call, keyBulk, batch.evalText === true);
      continue;
    }
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

/** EVALSHA <sha1> 1 <key> <args...>, or EVAL with the script's text. */
function encodeScriptCall(call: ScriptCall, keyBulk: string, evalText: boolean): string {
  const { script, args } = call;
  const body = evalText ? script.text : script.sha1;
  let out = `*${4 + args.length}\r\n${evalText ? '$4\r\nEVAL' : '$7\r\nEVALSHA'}\r\n`;
  out += `$${Buffer.byteLength(body)}\r\n${body}\r\n$1\r\n1\r\n${keyBulk}`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return out;
}

/** The redis error that says EVALSHA's script is not loaded. */
export function isNoScript(error: Error): boolean {
  return error.message.startsWith('NOSCRIPT');
}

/**
 * Reads one reply into `values` (a HitResults of `keyCount` hits) for key `i`: a count (INCRBY,
 * GET) or a script's {after, reset ms}. Returns false for an error reply that fails the batch;
 * a NOSCRIPT reply to a script marks the key NOT_LOADED instead.
 */
export function readReply(
  batch: CommandBatch,
  i: number,
  reply: unknown,
  error: Error | undefined,
  values: number[],
): boolean {
  const call = batch.scripts?.[i];
  if (error) {
    if (!call || !isNoScript(error)) return false;
    values[i] = NOT_LOADED;
    return true;
  }
  if (call) {
    const pair = reply as unknown[];
    values[i] = toCount(pair[0]);
    values[batch.keys.length + i] = toCount(pair[1]);
  } else {
    values[i] = toCount(reply);
  }
  return true;
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
