/** LOG_FORMAT: `text` (logrus-style lines, as the rate limit service writes them) or `json` (pino's lines). */
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/** LOG_FORMAT when set; otherwise text on a terminal and JSON when the output is a pipe or a file. */
export function resolveLogFormat(setting: LogFormat | undefined, output: { isTTY?: boolean }): LogFormat {
  return setting ?? (output.isTTY === true ? 'text' : 'json');
}

// pino's level numbers -> the names logrus writes, as the rate limit service's lines show them.
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};

/** Fields a terminal reader does not need on every line; the JSON lines keep them. */
const TEXT_OMITS = new Set(['level', 'time', 'msg', 'pid', 'hostname']);

function quoteIfNeeded(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w./:@-]+$/.test(text) ? text : JSON.stringify(text);
}

/** Nested objects (`req`, `res`, `err`) as dotted keys: `req.method=GET req.url=/books`. */
function flatten(prefix: string, value: unknown, into: [string, unknown][]): void {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [key, inner] of Object.entries(value))
      flatten(prefix === '' ? key : `${prefix}.${key}`, inner, into);
  } else if (value !== undefined) {
    into.push([prefix, value]);
  }
}

/**
 * One of pino's JSON lines as a text line in the rate limit service's (logrus') style:
 * `time="2026-11-27T16:35:47.123Z" level=info msg="Server listening at http://127.0.0.1:3000" key=value`.
 */
export function textLine(jsonLine: string): string {
  const entry = JSON.parse(jsonLine) as Record<string, unknown>;
  const time = new Date(typeof entry.time === 'number' ? entry.time : Date.now()).toISOString();
  const level = LEVEL_NAMES[Number(entry.level)] ?? String(entry.level);
  let line = `time=${JSON.stringify(time)} level=${level} msg=${JSON.stringify(String(entry.msg ?? ''))}`;
  const fields: [string, unknown][] = [];
  for (const [key, value] of Object.entries(entry)) if (!TEXT_OMITS.has(key)) flatten(key, value, fields);
  for (const [key, value] of fields) line += ` ${key}=${quoteIfNeeded(value)}`;
  return `${line}\n`;
}

/** A stream pino writes its lines to (fastify's `logger.stream`). */
export interface LineDestination {
  write(line: string): void;
}

/** Where the service's log lines go: pino's JSON lines as they are, or each one rendered as text. */
export function logDestination(format: LogFormat, output: { write(line: string): unknown }): LineDestination {
  if (format === 'json') return { write: (line) => void output.write(line) };
  return { write: (line) => void output.write(textLine(line)) };
}
