/**
 * The rate limit decision engine as a library, for any Node application: parse a config in the
 * reference's YAML format, find the rule a descriptor matches, decide in process on the memory
 * store, or ask a running rate limit service over gRPC. Both deciders answer the same type, so an
 * application can switch between them by configuration. Import it as `@platform/ratelimit`.
 */
import { credentials, Metadata, type ServiceClientConstructor, type ServiceError } from '@grpc/grpc-js';
import { MemoryStore } from './backends/memory.js';
import { ConfigHolder, loadConfig } from './config/loader.js';
import { matchDescriptor } from './config/match.js';
import type { RateLimitConfig } from './config/tree.js';
import { systemClock } from './limiter/clock.js';
import { RateLimiter } from './limiter/limiter.js';
import type { Unit } from './limiter/units.js';
import { silentLogger } from './log.js';
import { loadProtos } from './server/proto.js';
import type { DescriptorStatus, RateLimitResponse } from './service/messages.js';
import { RateLimitService } from './service/ratelimit-service.js';
import { StatStore } from './stats/store.js';

export type { RateLimitConfig } from './config/tree.js';
export type { Unit } from './limiter/units.js';

/** One `key=value` pair of a descriptor. */
export interface DescriptorEntry {
  readonly key: string;
  readonly value: string;
}

/** A descriptor to check: its entries, and optionally how many hits it counts (default: the request's). */
export interface Descriptor {
  readonly entries: readonly DescriptorEntry[];
  readonly hitsAddend?: number;
}

/** The answer for one descriptor. */
export interface DescriptorDecision {
  readonly code: 'OK' | 'OVER_LIMIT';
  /** The rule that applied; undefined when none matched (or it is unlimited): then nothing is counted. */
  readonly limit:
    | { readonly name: string; readonly requestsPerUnit: number; readonly unit: Unit }
    | undefined;
  /** Hits left in the current window (0 without a limit). */
  readonly remaining: number;
  /** Seconds until the current window ends; undefined without a limit. */
  readonly resetSeconds: number | undefined;
}

/** The answer for a request: over the limit when any descriptor is (after shadow mode). */
export interface RateLimitDecision {
  readonly overLimit: boolean;
  readonly descriptors: readonly DescriptorDecision[];
}

/** What both deciders offer: one call per request, with the domain and its descriptors. */
export interface RateLimitDecider {
  /**
   * Counts `hitsAddend` (default 1) hits against every descriptor's limit and says whether the
   * request is over. Rejects with a RateLimitConfigError-free Error when the decision cannot be made
   * (empty domain or descriptors, the remote service unreachable or too slow).
   */
  shouldRateLimit(
    domain: string,
    descriptors: readonly Descriptor[],
    hitsAddend?: number,
  ): Promise<RateLimitDecision>;
  close(): Promise<void>;
}

/** One config file: a name for error messages (e.g. `config.books.yaml`) and its YAML text. */
export interface ConfigFile {
  readonly name: string;
  readonly yaml: string;
}

/**
 * Parses and validates config files exactly as the service does (unknown keys, units, duplicate
 * domains...). Throws an Error with the reference's message when the set is invalid.
 * `mergeDomains` is MERGE_DOMAIN_CONFIG: several files may then add to one domain.
 */
export function parseConfig(
  files: readonly ConfigFile[],
  options: { mergeDomains?: boolean } = {},
): RateLimitConfig {
  return loadConfig(
    files.map((file) => ({ kind: 'yaml', name: file.name, text: file.yaml })),
    options.mergeDomains ?? false,
  );
}

/** The rule a descriptor matches in `domain`, as the service finds it; undefined when none does. */
export function findLimit(
  config: RateLimitConfig,
  domain: string,
  entries: readonly DescriptorEntry[],
):
  | {
      readonly name: string;
      readonly requestsPerUnit: number;
      readonly unit: Unit | undefined;
      readonly unlimited: boolean;
    }
  | undefined {
  const tree = config.domains.get(domain);
  const match = tree === undefined ? undefined : matchDescriptor(tree, entries);
  if (match === undefined) return undefined;
  const { name, requestsPerUnit, unit, unlimited } = match.rule;
  return { name, requestsPerUnit, unit, unlimited };
}

function statusDecision(status: DescriptorStatus): DescriptorDecision {
  const limit = status.currentLimit;
  return {
    code: status.code,
    limit:
      limit === null
        ? undefined
        : { name: limit.name, requestsPerUnit: limit.requestsPerUnit, unit: limit.unit },
    remaining: status.limitRemaining,
    resetSeconds: status.durationUntilReset === null ? undefined : status.durationUntilReset.seconds,
  };
}

function decision(response: RateLimitResponse): RateLimitDecision {
  return {
    overLimit: response.overallCode === 'OVER_LIMIT',
    descriptors: response.statuses.map(statusDecision),
  };
}

function request(domain: string, descriptors: readonly Descriptor[], hitsAddend: number) {
  return {
    domain,
    hitsAddend,
    descriptors: descriptors.map((descriptor) => ({
      entries: descriptor.entries,
      ...(descriptor.hitsAddend === undefined ? {} : { hitsAddend: { value: descriptor.hitsAddend } }),
    })),
  };
}

export interface InProcessOptions {
  /** The config; parsed (and validated) at construction. */
  readonly config: readonly ConfigFile[];
  readonly mergeDomains?: boolean;
  /** Milliseconds since the epoch (like Date.now, the default); tests inject their own. */
  readonly clock?: () => number;
  /** Bounds of the memory store (MEMORY_MAX_COUNTERS, MEMORY_MAX_BYTES); the service's defaults otherwise. */
  readonly maxCounters?: number;
  readonly maxBytes?: number;
  /** More descriptors in one call are refused (MAX_DESCRIPTORS_PER_REQUEST), default 1000. */
  readonly maxDescriptors?: number;
  /** The near-limit ratio of the stats (NEAR_LIMIT_RATIO), default 0.8. */
  readonly nearLimitRatio?: number;
}

/**
 * Decides in this process, on the memory store: the same matching, windows and arithmetic as the
 * service with BACKEND_TYPE=memory. Counters live in this process only, so each replica of an
 * application counts on its own; use RemoteRateLimiter for limits shared between processes.
 */
export class InProcessRateLimiter implements RateLimitDecider {
  private readonly store: MemoryStore;
  private readonly stats = new StatStore();
  private readonly service: RateLimitService;

  constructor(options: InProcessOptions) {
    const clock = options.clock ?? systemClock;
    const config = new ConfigHolder(this.stats, silentLogger, options.mergeDomains ?? false);
    config.apply(options.config.map((file) => ({ kind: 'yaml', name: file.name, text: file.yaml })));
    this.store = new MemoryStore(
      { stats: this.stats, log: silentLogger, now: clock, random: (max) => Math.floor(Math.random() * max) },
      ...(options.maxCounters === undefined || options.maxBytes === undefined
        ? []
        : [{ maxCounters: options.maxCounters, maxBytes: options.maxBytes }]),
    );
    const limiter = new RateLimiter(
      this.store,
      undefined,
      this.stats,
      {
        cacheKeyPrefix: '',
        nearLimitRatio: options.nearLimitRatio ?? 0.8,
        stopIncrementWhenOverLimit: false,
      },
      clock,
    );
    this.service = new RateLimitService(config, limiter, this.stats, {
      globalShadowMode: false,
      responseHeaders: undefined,
      responseDynamicMetadata: false,
      maxDescriptors: options.maxDescriptors ?? 1000,
    });
  }

  async shouldRateLimit(
    domain: string,
    descriptors: readonly Descriptor[],
    hitsAddend = 1,
  ): Promise<RateLimitDecision> {
    return decision(await this.service.shouldRateLimit(request(domain, descriptors, hitsAddend)));
  }

  async close(): Promise<void> {
    await this.store.close();
  }
}

export interface RemoteOptions {
  /** How long one decision may take before it fails (the gRPC deadline), default 200 ms. */
  readonly timeoutMs?: number;
}

type ShouldRateLimit = (
  request: unknown,
  metadata: Metadata,
  options: { deadline: number },
  callback: (error: ServiceError | null, response: RateLimitResponse) => void,
) => void;

/**
 * Asks a running rate limit service (this package's, or envoyproxy/ratelimit) over its gRPC API
 * (envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit), on a plaintext channel to
 * `host:port`. Limits come from that service's config; counters are shared by every caller.
 */
export class RemoteRateLimiter implements RateLimitDecider {
  private readonly client: InstanceType<ServiceClientConstructor>;
  private readonly timeoutMs: number;

  constructor(address: string, options: RemoteOptions = {}) {
    const { rateLimitService } = loadProtos();
    this.client = new rateLimitService(address, credentials.createInsecure());
    this.timeoutMs = options.timeoutMs ?? 200;
  }

  shouldRateLimit(
    domain: string,
    descriptors: readonly Descriptor[],
    hitsAddend = 1,
  ): Promise<RateLimitDecision> {
    const call = (this.client as unknown as { ShouldRateLimit: ShouldRateLimit }).ShouldRateLimit;
    return new Promise((resolve, reject) =>
      call.call(
        this.client,
        request(domain, descriptors, hitsAddend),
        new Metadata(),
        { deadline: Date.now() + this.timeoutMs },
        (error, response) => (error ? reject(error) : resolve(decision(response))),
      ),
    );
  }

  async close(): Promise<void> {
    this.client.close();
  }
}
