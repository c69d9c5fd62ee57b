import { createHash } from 'node:crypto';

/** A Lua script sent by EVALSHA, with its text for the EVAL that follows a NOSCRIPT reply. */
export interface LuaScript {
  readonly name: string;
  readonly text: string;
  readonly sha1: string;
}

function script(name: string, text: string): LuaScript {
  return { name, text, sha1: createHash('sha1').update(text).digest('hex') };
}

/*
 * Both scripts mirror src/limiter/algorithms operation for operation, in whole numbers below
 * 2^53 and IEEE doubles in both languages, so the memory store and Redis give the same answers. Each
 * touches one key, so in a cluster it runs on the node of that key's slot with no hash tag.
 * The clock is the Redis server's (TIME), so every service instance sees the same time; tests
 * pass their own time in one more argument instead (production sends none: a shorter command).
 * redis.replicate_commands() lets a script write after TIME on Redis 3.2 to 6 (on 7 scripts
 * always replicate their effects).
 *
 * Shared prelude: `now` in ms, from ARGV[clockArg] when given.
 */
const prelude = (clockArg: number) => `
if redis.replicate_commands then redis.replicate_commands() end
local now = tonumber(ARGV[${clockArg}])
if not now then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
end
`;

/**
 * Sliding window. KEYS[1]: the counter, a hash {s: window start in ms, c: its count, p: the
 * previous window's count}. ARGV: window ms, addend, '1' to count the hit or '0' to only look,
 * and (tests only) now in ms. Replies {after, ms to the end of the window}.
 */
export const SLIDING_WINDOW_SCRIPT = script(
  'sliding_window',
  `${prelude(4)}
local w = tonumber(ARGV[1])
local n = tonumber(ARGV[2])
local start = now - math.fmod(now, w)
local state = redis.call('HMGET', KEYS[1], 's', 'c', 'p')
local c, p = 0, 0
local s = tonumber(state[1])
if s == start then
  c = tonumber(state[2]) or 0
  p = tonumber(state[3]) or 0
elseif s == start - w then
  p = tonumber(state[2]) or 0
end
local elapsed = now - start
local carried = math.ceil(p * (w - elapsed) / w)
c = c + n
if ARGV[3] == '1' and n > 0 then
  redis.call('HSET', KEYS[1], 's', start, 'c', c, 'p', p)
  redis.call('PEXPIRE', KEYS[1], start + 2 * w - now)
end
return {c + carried, w - elapsed}
`,
);

/**
 * Token bucket. KEYS[1]: the bucket, a hash {d: debt, t: ms of the last update}; no key is a
 * full bucket, and the key expires when the bucket is full again. ARGV: window ms, rate,
 * burst, addend, '1' to take the tokens or '0' to only look, and (tests only) now in ms.
 * Replies {after, ms until the bucket is full}.
 */
export const TOKEN_BUCKET_SCRIPT = script(
  'token_bucket',
  `${prelude(6)}
local w = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local burst = tonumber(ARGV[3])
local n = tonumber(ARGV[4])
local state = redis.call('HMGET', KEYS[1], 'd', 't')
local debt = tonumber(state[1]) or 0
local at = tonumber(state[2]) or now
if now > at then
  local drained = (now - at) * rate
  if drained >= debt then debt = 0 else debt = debt - drained end
  at = now
end
local after = math.ceil(debt / w) + n
if ARGV[5] == '1' and n > 0 and after <= burst then
  debt = debt + n * w
  redis.call('HSET', KEYS[1], 'd', debt, 't', at)
  redis.call('PEXPIRE', KEYS[1], math.ceil(debt / rate))
end
local reset = 0
if rate > 0 then reset = math.ceil(debt / rate) end
return {after, reset}
`,
);
