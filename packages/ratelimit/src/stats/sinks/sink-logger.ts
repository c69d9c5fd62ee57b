/** The part of the application logger that sinks use to report delivery problems. */
export interface SinkLogger {
  warn(message: string, fields?: Record<string, unknown>): void;
}
