import { fixedWindowLimit } from '../config/limits.js';
import type { ConfigHolder } from '../config/loader.js';
import { matchDescriptor } from '../config/match.js';
import type { DomainConfig, LimitMatch, RateLimitRule } from '../config/tree.js';
import { ServiceError, StoreError } from '../errors.js';
import type { CountedLimit, RateLimiter } from '../limiter/limiter.js';
import { OVERRIDE_UNIT_NAMES, overrideUnit } from '../limiter/units.js';
import { isTracingActive, timedSpan } from '../observability/spans.js';
import { STAT } from '../stats/names.js';
import type { Counter, StatStore } from '../stats/store.js';
import { buildDynamicMetadata } from './dynamic-metadata.js';
import {
  type DescriptorStatus,
  type HeaderValue,
  okStatus,
  type RateLimitRequest,
  type RateLimitResponse,
  type RequestDescriptor,
  unlimitedStatus,
} from './messages.js';

/** One text for both checks: the gRPC one stops counting at the first descriptor past `max`. */
export function tooManyDescriptors(max: number): ServiceError {
  return new ServiceError(
    `rate limit descriptor list has more than MAX_DESCRIPTORS_PER_REQUEST (${max}) descriptors`,
  );
}

export interface ServiceOptions {
  readonly globalShadowMode: boolean;
  readonly responseHeaders:
    | { readonly limit: string; readonly remaining: string; readonly reset: string }
    | undefined;
  readonly responseDynamicMetadata: boolean;
  /** More descriptors than this are refused before any work (MAX_DESCRIPTORS_PER_REQUEST). */
  readonly maxDescriptors: number;
}

/**
 * ShouldRateLimit: validates the request, resolves each descriptor's limit (match, override,
 * unlimited, replaces), lets the limiter count, then builds the overall code, headers and
 * metadata. Errors are ServiceError or StoreError values, counted by type.
 */
export class RateLimitService {
  private readonly serviceErrors: Counter;
  private readonly storeErrors: Counter;
  private readonly globalShadow: Counter;

  constructor(
    private readonly config: ConfigHolder,
    private readonly limiter: RateLimiter,
    private readonly stats: StatStore,
    private readonly options: ServiceOptions,
  ) {
    this.serviceErrors = stats.counter(STAT.serviceError);
    this.storeErrors = stats.counter(STAT.redisError);
    this.globalShadow = stats.counter(STAT.globalShadowMode);
  }

  /** The answer, or a rejection with a ServiceError or StoreError, already counted. */
  shouldRateLimit(request: RateLimitRequest): Promise<RateLimitResponse> {
    if (isTracingActive()) {
      // The reference's span for every call, gRPC and /json alike (the span's answer is this promise).
      return Promise.resolve(
        timedSpan(
          'ShouldRateLimit Execution',
          { domain: request.domain, 'request string': JSON.stringify(request) },
          () => this.decideCounted(request),
        ),
      );
    }
    return this.decideCounted(request);
  }

  private decideCounted(request: RateLimitRequest): Promise<RateLimitResponse> {
    try {
      return this.decide(request);
    } catch (error) {
      return Promise.reject(this.counted(error));
    }
  }

  /** Counts a request a transport refused before decoding it, as the service would have. */
  refuse(error: ServiceError): ServiceError {
    this.serviceErrors.inc();
    return error;
  }

  /** Counts a failure by type and gives the error to report. */
  private counted(error: unknown): Error {
    if (error instanceof StoreError) {
      this.storeErrors.inc();
      return error;
    }
    this.serviceErrors.inc();
    return error instanceof ServiceError ? error : new ServiceError((error as Error).message);
  }

  /** Throws what is wrong with the request itself; the promise rejects with what the store says. */
  private decide(request: RateLimitRequest): Promise<RateLimitResponse> {
    if (request.domain === '') throw new ServiceError('rate limit domain must not be empty');
    const descriptors = request.descriptors;
    if (descriptors.length === 0) throw new ServiceError('rate limit descriptor list must not be empty');
    if (descriptors.length > this.options.maxDescriptors) {
      throw tooManyDescriptors(this.options.maxDescriptors);
    }
    const config = this.config.current;
    if (!config) throw new ServiceError('no rate limit configuration loaded');

    const statuses = new Array<DescriptorStatus>(descriptors.length);
    const domain = config.domains.get(request.domain);
    if (!domain) {
      this.stats.domainNotFound(request.domain).inc(descriptors.length);
      for (let i = 0; i < descriptors.length; i++) statuses[i] = okStatus();
      return Promise.resolve(this.respond(request, statuses));
    }
    const addends = hitsAddends(request);
    const limits = this.resolveLimits(domain, descriptors, statuses);
    const counting = this.limiter.check(request.domain, descriptors, limits, addends, statuses);
    // One promise for the answer and the failure, not a chain of two.
    return counting.then(
      () => this.respondCounted(request, statuses),
      (error: unknown) => {
        throw this.counted(error);
      },
    );
  }

  private respondCounted(request: RateLimitRequest, statuses: DescriptorStatus[]): RateLimitResponse {
    try {
      return this.respond(request, statuses);
    } catch (error) {
      throw this.counted(error);
    }
  }

  /**
   * One limit per descriptor, with unlimited rules answered at once and replaced rules dropped:
   * a rule is dropped when any matched rule (unlimited ones included) names it in `replaces`.
   */
  private resolveLimits(
    domain: DomainConfig,
    descriptors: readonly RequestDescriptor[],
    statuses: DescriptorStatus[],
  ): (CountedLimit | undefined)[] {
    const limits = new Array<CountedLimit | undefined>(descriptors.length);
    let replaced: Set<string> | undefined;
    for (let i = 0; i < descriptors.length; i++) {
      const descriptor = descriptors[i] as RequestDescriptor;
      const match = descriptor.limit
        ? overrideMatch(domain.domain, descriptor)
        : matchDescriptor(domain, descriptor.entries);
      if (match && match.rule.replaces.length > 0) {
        replaced ??= new Set();
        for (const name of match.rule.replaces) replaced.add(name);
      }
      if (!match) statuses[i] = okStatus();
      else if (match.rule.unlimited) statuses[i] = unlimitedStatus();
      else limits[i] = match as CountedLimit;
    }
    if (replaced) {
      for (let i = 0; i < limits.length; i++) {
        const rule = limits[i]?.rule;
        if (rule && isReplaced(rule, replaced)) {
          limits[i] = undefined;
          statuses[i] = okStatus();
        }
      }
    }
    return limits;
  }

  private respond(request: RateLimitRequest, statuses: DescriptorStatus[]): RateLimitResponse {
    let overLimit = false;
    for (const status of statuses) if (status.code === 'OVER_LIMIT') overLimit = true;
    const response: RateLimitResponse = {
      overallCode: overLimit ? 'OVER_LIMIT' : 'OK',
      statuses,
      responseHeadersToAdd: this.options.responseHeaders ? this.headers(statuses) : NO_HEADERS,
      dynamicMetadata: this.options.responseDynamicMetadata ? buildDynamicMetadata(request) : null,
    };
    if (overLimit && this.options.globalShadowMode) {
      // Global shadow mode only changes the overall code; the statuses keep OVER_LIMIT.
      response.overallCode = 'OK';
      this.globalShadow.inc();
    }
    return response;
  }

  /** The reference's headers: the last over-limit status, else the smallest remaining. */
  private headers(statuses: readonly DescriptorStatus[]): HeaderValue[] {
    let chosen: DescriptorStatus | undefined;
    let lastOver: DescriptorStatus | undefined;
    for (const status of statuses) {
      if (!status.currentLimit) continue;
      if (status.code === 'OVER_LIMIT') lastOver = status;
      if (!chosen || status.limitRemaining < chosen.limitRemaining) chosen = status;
    }
    chosen = lastOver ?? chosen;
    const names = this.options.responseHeaders;
    if (!chosen?.currentLimit || !names) return [];
    return [
      { key: names.limit, value: String(chosen.currentLimit.requestsPerUnit) },
      { key: names.remaining, value: String(chosen.limitRemaining) },
      { key: names.reset, value: String(wholeSeconds(chosen.durationUntilReset)) },
    ];
  }
}

/** Shared by every response without headers, so none allocates an empty list. */
const NO_HEADERS: readonly HeaderValue[] = Object.freeze([]);

/**
 * Whether a `replaces` names the rule: its name, or for a `rate_limits` list the name of any of
 * its limits (a list is replaced as a whole).
 */
function isReplaced(rule: RateLimitRule, replaced: ReadonlySet<string>): boolean {
  if (rule.name && replaced.has(rule.name)) return true;
  if (rule.limits.length < 2) return false;
  return rule.limits.some((limit) => limit.name !== '' && replaced.has(limit.name));
}

/** The reset header: whole seconds, a part of one counting as one. */
function wholeSeconds(duration: DescriptorStatus['durationUntilReset']): number {
  if (!duration) return 0;
  return duration.seconds + (duration.nanos > 0 ? 1 : 0);
}

/**
 * Per descriptor: its own hits_addend when set (0 means check only), else max(1, request's).
 * Counters and stats count in doubles, exact up to 2^53 - 1: a larger addend is refused rather
 * than counted as a rounded number (every limit is a uint32, so the decision would not change).
 */
function hitsAddends(request: RateLimitRequest): number[] {
  const fallback = Math.max(1, request.hitsAddend);
  const descriptors = request.descriptors;
  const addends = new Array<number>(descriptors.length);
  for (let i = 0; i < descriptors.length; i++) {
    const own = (descriptors[i] as RequestDescriptor).hitsAddend?.value;
    if (own === undefined) addends[i] = fallback;
    else if (typeof own === 'number' && own <= Number.MAX_SAFE_INTEGER) addends[i] = own;
    else addends[i] = countableAddend(own, i);
  }
  return addends;
}

/** A hits_addend given as a bigint or a double past 2^53 - 1: its number, or the refusal. */
function countableAddend(value: number | bigint, index: number): number {
  const exact = BigInt(value);
  if (exact <= BigInt(Number.MAX_SAFE_INTEGER)) return Number(exact);
  throw new ServiceError(
    `descriptor ${index} hits_addend ${exact} is above ${Number.MAX_SAFE_INTEGER}, the largest the counters hold exactly`,
  );
}

/** A request's limit override: stat key `<domain>.<k1>[_<v1>]...`, never shadowed, no name. */
function overrideMatch(domain: string, descriptor: RequestDescriptor): LimitMatch {
  const override = descriptor.limit as NonNullable<RequestDescriptor['limit']>;
  const unit = typeof override.unit === 'string' ? overrideUnit(override.unit) : undefined;
  if (!unit) {
    throw new ServiceError(
      `invalid rate limit unit '${override.unit}' in the descriptor's limit override: use ${OVERRIDE_UNIT_NAMES.slice(1).join(', ')}`,
    );
  }
  let statKey = domain;
  for (const entry of descriptor.entries) {
    statKey += entry.value === '' ? `.${entry.key}` : `.${entry.key}_${entry.value}`;
  }
  return {
    rule: {
      fullKey: statKey,
      requestsPerUnit: override.requestsPerUnit,
      unit,
      unlimited: false,
      limits: [fixedWindowLimit(unit, override.requestsPerUnit)],
      name: '',
      replaces: [],
      shadowMode: false,
    },
    statKey,
    sharedValues: undefined,
  };
}
