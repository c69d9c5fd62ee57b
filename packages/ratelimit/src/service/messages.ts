import type { Entry } from '../config/match.js';
import type { Unit } from '../limiter/units.js';

/**
 * The decoded RateLimitRequest, in the shape @grpc/proto-loader produces (camelCase fields,
 * enums as names, uint64 as numbers), which the /json decoder produces as well.
 */
export interface RateLimitRequest {
  readonly domain: string;
  readonly descriptors: readonly RequestDescriptor[];
  readonly hitsAddend: number;
}

export interface RequestDescriptor {
  readonly entries: readonly Entry[];
  /** The request's limit override; `unit` is an envoy.type.v3.RateLimitUnit name, or its number when unknown. */
  readonly limit?: { readonly requestsPerUnit: number; readonly unit: string | number } | null;
  /**
   * google.protobuf.UInt64Value: present (even as 0) means it overrides the request's hitsAddend.
   * /json gives a bigint past 2^53 - 1 (exact); gRPC (proto-loader, longs as numbers) a double.
   */
  readonly hitsAddend?: { readonly value: number | bigint } | null;
}

export type Code = 'OK' | 'OVER_LIMIT';

export interface CurrentLimit {
  readonly name: string;
  readonly requestsPerUnit: number;
  readonly unit: Unit;
}

export interface DescriptorStatus {
  code: Code;
  currentLimit: CurrentLimit | null;
  limitRemaining: number;
  durationUntilReset: { readonly seconds: number; readonly nanos: number } | null;
}

export interface HeaderValue {
  readonly key: string;
  readonly value: string;
}

/** Plain JSON; the gRPC layer encodes it as google.protobuf.Struct. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

export interface RateLimitResponse {
  overallCode: Code;
  statuses: DescriptorStatus[];
  responseHeadersToAdd: readonly HeaderValue[];
  dynamicMetadata: { [key: string]: JsonValue } | null;
}

/**
 * The largest uint32: the bound of requests_per_unit, limit_remaining and the request's
 * hits_addend in rls.proto, and of requests_per_unit in the reference's config (a Go uint32).
 */
export const UINT32_MAX = 4_294_967_295;

/** The status of a descriptor with no limit (unknown domain, no match, replaced rule). */
export function okStatus(): DescriptorStatus {
  return { code: 'OK', currentLimit: null, limitRemaining: 0, durationUntilReset: null };
}

/** An unlimited rule: OK with the maximum uint32 remaining and no current limit. */
export function unlimitedStatus(): DescriptorStatus {
  return { code: 'OK', currentLimit: null, limitRemaining: UINT32_MAX, durationUntilReset: null };
}
