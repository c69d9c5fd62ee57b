import type { Strategy } from '../quota/strategy.js';

/** A BucketId's `key: value` pairs, as received (their order carries no meaning). */
export type BucketPairs = ReadonlyArray<readonly [string, string]>;

/** One bucket's usage in a RateLimitQuotaUsageReports, decoded and checked by the codec. */
export interface BucketUsage {
  readonly bucket: BucketPairs;
  /** time_elapsed in ms, more than 0. */
  readonly elapsedMs: number;
  readonly allowed: number;
  readonly denied: number;
}

/** A RateLimitQuotaUsageReports message; `domain` is '' when the report leaves it out. */
export interface UsageReport {
  readonly domain: string;
  readonly usages: readonly BucketUsage[];
}

/** One BucketAction of a RateLimitQuotaResponse. */
export type BucketAction =
  | {
      readonly kind: 'assign';
      readonly bucket: BucketPairs;
      readonly strategy: Strategy;
      /** assignment_time_to_live in ms; 0 expires the assignment at once. */
      readonly ttlMs: number;
    }
  | { readonly kind: 'abandon'; readonly bucket: BucketPairs };

/** Why a stream is ended: the gRPC status the server sends, and its message. */
export class QuotaStreamError extends Error {
  constructor(
    readonly code: 'INVALID_ARGUMENT' | 'RESOURCE_EXHAUSTED',
    message: string,
  ) {
    super(message);
    this.name = 'QuotaStreamError';
  }
}
