import { type DestinationStream, type Logger, pino } from 'pino';
import { SettingsError } from '../errors.js';

export type { Logger } from 'pino';
export type LogFormat = 'text' | 'json';
export const LOG_FORMATS: readonly LogFormat[] = ['text', 'json'];

/**
 * LOG_FORMAT when set; otherwise text on a terminal and JSON when the output is a pipe or a file,
 * so a person reads lines and a log pipeline parses them (the book service decides the same way).
 */
export function resolveLogFormat(setting: LogFormat | undefined, output: { isTTY?: boolean }): LogFormat {
  return setting ?? (output.isTTY === true ? 'text' : 'json');
}

export interface LogSettings {
  /** LOG_LEVEL, logrus names, any case: trace, debug, info, warn/warning, error, fatal, panic. */
  readonly level: string;
  /** LOG_FORMAT. */
  readonly format: LogFormat;
}

// logrus level name -> pino level; the reference accepts every logrus name.
const pinoLevels: Readonly<Record<string, string>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warn',
  warning: 'warn',
  error: 'error',
  fatal: 'fatal',
  panic: 'fatal',
};

// pino level -> the name logrus writes, so log pipelines built for the reference keep working.
const logrusNames: Readonly<Record<string, string>> = {
  trace: 'trace',
  debug: 'debug',
  info: 'info',
  warn: 'warning',
  error: 'error',
  fatal: 'fatal',
};

export function parseLogLevel(text: string): string {
  const level = pinoLevels[text.trim().toLowerCase()];
  if (!level) {
    throw new SettingsError(
      'LOG_LEVEL',
      `unknown level '${text}'; use one of trace, debug, info, warn, error, fatal`,
    );
  }
  return level;
}

function quoteIfNeeded(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return /^[\w./:@-]+$/.test(text) ? text : JSON.stringify(text);
}

/** Renders pino's JSON line as logrus' text format: `time="..." level=warning msg="..." key=value`. */
export function textLine(jsonLine: string): string {
  const {
    '@timestamp': time,
    level,
    '@message': message,
    ...fields
  } = JSON.parse(jsonLine) as Record<string, unknown>;
  let line = `time=${JSON.stringify(time)} level=${String(level)} msg=${JSON.stringify(String(message ?? ''))}`;
  for (const key of Object.keys(fields).sort()) line += ` ${key}=${quoteIfNeeded(fields[key])}`;
  return `${line}\n`;
}

/**
 * The application logger. JSON lines carry `@message`, `@timestamp` and `level` (the reference's
 * logrus JSON field map); text lines look like logrus' text formatter. Both go to stderr by default.
 */
export function createLogger(settings: LogSettings, write?: (line: string) => void): Logger {
  const output = write ?? ((line: string) => process.stderr.write(line));
  const destination: DestinationStream = {
    write: settings.format === 'json' ? output : (line: string) => output(textLine(line)),
  };
  return pino(
    {
      level: parseLogLevel(settings.level),
      messageKey: '@message',
      base: null,
      timestamp: () => `,"@timestamp":"${new Date().toISOString()}"`,
      formatters: { level: (label) => ({ level: logrusNames[label] ?? label }) },
    },
    destination,
  );
}
