/** What one load run measured, whatever tool drove it. */
export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  /** For a paced run, the rate it asked for (requests/s); a lower `requestsPerSecond` means the server fell behind. */
  readonly askedPerSecond?: number;
  /** Responses that were not a success (non-2xx, transport errors, timeouts). */
  readonly failed: number;
  /** The exact command line that produced the numbers. */
  readonly command: string;
}

/** The q-quantile (0..1) of an ascending-sorted array, nearest rank. */
export function quantile(sorted: Float64Array | readonly number[], q: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] as number;
}

/** Quotes an argument for display as a shell command. */
export function shellQuote(argument: string): string {
  return /^[\w@%+=:,./-]+$/.test(argument) ? argument : `'${argument.replaceAll("'", "'\\''")}'`;
}
