/** The part of the application logger (pino) that sinks use to report delivery problems. */
export interface SinkLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}
