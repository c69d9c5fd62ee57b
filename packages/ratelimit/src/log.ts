import type { StoreLogger } from './backends/store.js';
import {
  createLogger as createPinoLogger,
  type LogFormat,
  resolveLogFormat,
} from './observability/logger.js';

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

export interface Logger extends StoreLogger {
  debug(message: string, fields?: Record<string, unknown>): void;
  info(message: string, fields?: Record<string, unknown>): void;
}

/**
 * Log lines on stderr through pino, like the reference: logrus-style text (`time=… level=… msg=…`)
 * or JSON lines with `@timestamp`, `level` and `@message` (LOG_FORMAT=json). With no format given,
 * text when stderr is a terminal and JSON otherwise.
 */
export function createLogger(
  level: LogLevel,
  format: LogFormat | undefined,
  write?: (line: string) => void,
): Logger {
  const pino = createPinoLogger({ level, format: resolveLogFormat(format, process.stderr) }, write);
  return {
    debug: (message, fields) => pino.debug(fields ?? {}, message),
    info: (message, fields) => pino.info(fields ?? {}, message),
    warn: (message, fields) => pino.warn(fields ?? {}, message),
    error: (message, fields) => pino.error(fields ?? {}, message),
  };
}

/** A logger that drops everything, for tests and tools. */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} };
