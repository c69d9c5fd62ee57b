import { CallError } from '../errors.js';

/**
 * What the dispatcher needs from one request, whichever interface received it. The Node and fetch
 * interfaces each implement it over their native request without copying anything up front.
 */
export interface Exchange {
  readonly method: string;
  /** The request target as sent: path plus `?query`, not decoded. */
  readonly target: string;
  /** One header by lower-case name; repeated headers are joined with `, `. */
  header(name: string): string | undefined;
  /** All headers as a web `Headers`; built on first use. */
  headers(): Headers;
  /** `scheme://host[:port]` the client addressed. */
  origin(): string;
  readonly remoteAddress: string | undefined;
  /**
   * Whether an open connection of the host's carries the request, which keeps the process alive
   * while it is pending (false for a `fetch` call made in-process).
   */
  readonly onConnection: boolean;
  /** `HTTP/1.1`, `HTTP/2.0`, … as far as the interface knows it. */
  protocol(): string;
  /** Whether the request carries a body worth reading. */
  hasBody(): boolean;
  /**
   * Reads the whole body, counting bytes as they arrive (chunked or not), then calls `received`
   * with it, or `failed` with the error; exactly one of them, at most once. Past `limit` it stops
   * reading, abandons the body and fails with CallError 413. Callbacks rather than a promise: the
   * dispatcher continues in the tick the body ends, with no promise per step.
   */
  readBody(limit: number, received: (body: Uint8Array) => void, failed: (error: unknown) => void): void;
  /**
   * Stops reading a body that has not ended (too large, or too slow). The interface then answers
   * with `Connection: close` and the connection ends after the answer, so nothing more is read.
   */
  abandonBody(): void;
}

/** The 413 both interfaces answer for a body past the limit. */
export function bodyTooLarge(limit: number): CallError {
  return new CallError(413, `the request body is larger than the limit of ${limit} bytes`);
}
