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
  /** What to add (increment); with scripts also for `get`, where a script looks with it. */
  readonly addends: readonly number[];
  /** increment only: EXPIRE seconds */
  readonly ttls: readonly number[];
  /** Per key, the script to run on it instead; absent when no key has one. */
  readonly scripts?: readonly (ScriptSpec | undefined)[] | undefined;
  /** The time in ms the scripts count with (a test clock); absent: the Redis server's TIME. */
  readonly clockMs?: string | undefined;
  /** Scripts go by EVAL with their text: the resend after Redis answered NOSCRIPT to EVALSHA. */
  readonly evalText?: boolean;
}

/**
 * A sliding window's or token bucket's script for one limit, made once per limit: the arguments
 * the limit fixes are encoded once, so a request only adds its key, its addend and the
 * count-or-look flag to a few constant strings.
 */
export interface ScriptSpec {
  readonly script: LuaScript;
  /** The ARGV the limit fixes, first in ARGV: window ms; for a token bucket also rate and burst. */
  readonly fixedArgs: readonly string[];
  /** `EVALSHA <sha1> 1` with the argument count of a call without a test clock, in RESP. */
  readonly evalshaHead: string;
  /** fixedArgs in RESP. */
  readonly fixedArgsResp: string;
}

/** The spec of `script` for a limit whose own arguments are `fixedArgs`. */
export function scriptSpec(script: LuaScript, fixedArgs: readonly string[]): ScriptSpec {
  // EVALSHA, the sha1, the key count, the key, the fixed arguments, the addend and the flag.
  const words = 4 + fixedArgs.length + 2;
  return {
    script,
    fixedArgs,
    evalshaHead: `*${words}\r\n$7\r\nEVALSHA\r\n$${script.sha1.length}\r\n${script.sha1}\r\n$1\r\n1\r\n`,
    fixedArgsResp: fixedArgs.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join(''),
  };
}

/** The ARGV of key `i`'s script: the limit's own, the addend, the flag and any test clock. */
export function scriptArgs(batch: CommandBatch, i: number): string[] {
  const spec = batch.scripts?.[i] as ScriptSpec;
  const args = [...spec.fixedArgs, String(batch.addends[i]), batch.kind === 'increment' ? '1' : '0'];
  if (batch.clockMs !== undefined) args.push(batch.clockMs);
  return args;
}

/**
 * What a script's key holds in the replies while Redis has not loaded the script (NOSCRIPT): the
 * store sends those keys again by EVAL. NaN, as no count is.
 */
export const NOT_LOADED = Number.NaN;

/**
 * The array a batch's answers are read into (see HitResults): with scripts, room for their reset
 * times after the counts, so no write lands past its end and grows it.
 */
export function newValues(batch: CommandBatch): number[] {
  return new Array<number>(batch.scripts ? batch.keys.length * 2 : batch.keys.length);
}

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
    const spec = batch.scripts?.[i];
    if (spec) {
      out += encodeScriptCall(batch, i, spec, keyBulk);
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

const COUNT_FLAG = '$1\r\n1\r\n';
const LOOK_FLAG = '$1\r\n0\r\n';

/**
 * EVALSHA <sha1> 1 <key> <args...>: in production (no test clock, EVALSHA) a few constant
 * strings around the key and the addend; EVAL with the script's text, or a test clock, spells
 * out every argument.
 */
function encodeScriptCall(batch: CommandBatch, i: number, spec: ScriptSpec, keyBulk: string): string {
  if (batch.evalText || batch.clockMs !== undefined) {
    const key = batch.keys[i] as string;
    const { script } = spec;
    return encodeCommand(
      batch.evalText
        ? ['EVAL', script.text, '1', key, ...scriptArgs(batch, i)]
        : ['EVALSHA', script.sha1, '1', key, ...scriptArgs(batch, i)],
    );
  }
  const addend = String(batch.addends[i]);
  const flag = batch.kind === 'increment' ? COUNT_FLAG : LOOK_FLAG;
  return `${spec.evalshaHead}${keyBulk}${spec.fixedArgsResp}$${addend.length}\r\n${addend}\r\n${flag}`;
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
  const script = batch.scripts?.[i];
  if (error) {
    if (!script || !isNoScript(error)) return false;
    values[i] = NOT_LOADED;
    return true;
  }
  if (script) {
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
