import type { StoreLogger } from './backends/store.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const RANK: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger extends StoreLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Log lines on stderr, like the reference: text (`time=… level=… msg=…`) or JSON lines with
 * `@timestamp`, `level` and `@message` (LOG_FORMAT=json).
 */
export function createLogger(
  level: LogLevel,
  format: 'text' | 'json',
  write: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const min = RANK[level];
  const log = (lineLevel: LogLevel, message: string, fields?: Record<string, unknown>) => {
    if (RANK[lineLevel] < min) return;
    const time = new Date().toISOString();
    if (format === 'json') {
      write(`${JSON.stringify({ '@timestamp': time, level: lineLevel, '@message': message, ...fields })}\n`);
      return;
    }
    const extra = fields
      ? Object.entries(fields)
          .map(([key, value]) => ` ${key}=${JSON.stringify(value)}`)
          .join('')
      : '';
    write(`time="${time}" level=${lineLevel} msg=${JSON.stringify(message)}${extra}\n`);
  };
  return {
    debug: (message, fields) => log('debug', message, fields),
    info: (message, fields) => log('info', message, fields),
    warn: (message, fields) => log('warn', message, fields),
    error: (message, fields) => log('error', message, fields),
  };
}

/** A logger that drops everything, for tests and tools. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
