/** The part of the application logger the xDS client and management server use. */
export interface XdsLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  warn(message: string, fields?: Record<string, unknown>): void;
}
