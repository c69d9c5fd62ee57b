/**
 * Parsers for the replies of the memcached text protocol commands this store sends
 * (get, incr, add). Each parser reads from a byte buffer and says how much it consumed, or that
 * it needs more bytes; the connection feeds it as data arrives.
 */

export type Parsed<T> =
  | { readonly done: true; readonly value: T; readonly consumed: number }
  | { readonly done: false };

export type ReplyParser<T> = (buffer: Buffer) => Parsed<T>;

/** A reply line that reports a failure (ERROR, CLIENT_ERROR ..., SERVER_ERROR ...). */
export class MemcacheReplyError extends Error {
  constructor(line: string) {
    super(`memcache: server error: ${line}`);
    this.name = 'MemcacheReplyError';
  }
}

const NEED_MORE = { done: false } as const;
const CRLF = Buffer.from('\r\n');

function isErrorLine(line: string): boolean {
  return line === 'ERROR' || line.startsWith('CLIENT_ERROR') || line.startsWith('SERVER_ERROR');
}

/** `get k1 k2 ...`: VALUE <key> <flags> <bytes>\r\n<data>\r\n ... END\r\n → key → value. */
export const parseGetReply: ReplyParser<Map<string, string>> = (buffer) => {
  const values = new Map<string, string>();
  let at = 0;
  for (;;) {
    const end = buffer.indexOf(CRLF, at);
    if (end < 0) return NEED_MORE;
    // UTF-8: keys may hold any non-space character, and must match the keys we asked for.
    const line = buffer.toString('utf8', at, end);
    if (line === 'END') return { done: true, value: values, consumed: end + 2 };
    if (isErrorLine(line)) throw new MemcacheReplyError(line);
    const parts = line.split(' ');
    if (parts[0] !== 'VALUE' || parts.length < 4)
      throw new MemcacheReplyError(`unexpected reply line '${line}'`);
    const length = Number(parts[3]);
    const dataStart = end + 2;
    if (buffer.length < dataStart + length + 2) return NEED_MORE;
    values.set(parts[1] as string, buffer.toString('latin1', dataStart, dataStart + length));
    at = dataStart + length + 2;
  }
};

function singleLine<T>(interpret: (line: string) => T): ReplyParser<T> {
  return (buffer) => {
    const end = buffer.indexOf(CRLF);
    if (end < 0) return NEED_MORE;
    const line = buffer.toString('latin1', 0, end);
    if (isErrorLine(line)) throw new MemcacheReplyError(line);
    return { done: true, value: interpret(line), consumed: end + 2 };
  };
}

/** `incr`: the new value, or 'NOT_FOUND' (gomemcache's ErrCacheMiss). */
export const parseIncrReply = singleLine<number | 'NOT_FOUND'>((line) => {
  if (line === 'NOT_FOUND') return 'NOT_FOUND';
  if (!/^\d+$/.test(line)) throw new MemcacheReplyError(`unexpected reply line '${line}'`);
  return Number(line);
});

/** `add`: STORED or NOT_STORED (gomemcache's ErrNotStored: someone else added it first). */
export const parseAddReply = singleLine<'STORED' | 'NOT_STORED'>((line) => {
  if (line === 'STORED' || line === 'NOT_STORED') return line;
  throw new MemcacheReplyError(`unexpected reply line '${line}'`);
});

/**
 * gomemcache's legalKey: at most 250 bytes, and no byte at or below space, nor DEL. Such a key
 * would break the text protocol, so it is never sent.
 */
export function isLegalKey(key: string): boolean {
  if (Buffer.byteLength(key) > 250) return false;
  for (let i = 0; i < key.length; i++) {
    const code = key.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f) return false;
  }
  return true;
}
