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
  /** Whether the request carries a body worth reading. */
  hasBody(): boolean;
  /** Reads the whole body; rejects with CallError 413 beyond `limit` bytes. */
  readBody(limit: number): Promise<Uint8Array>;
}
