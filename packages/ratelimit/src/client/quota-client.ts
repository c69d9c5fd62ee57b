import { EventEmitter } from 'node:events';
import {
  type ChannelCredentials,
  type Client,
  type ClientDuplexStream,
  credentials as grpcCredentials,
  loadPackageDefinition,
  type ServiceClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { protoRoot } from '../protocol/proto.js';

/** An assignment as the server sent it (envoy.type.v3.RateLimitStrategy, flattened). */
export type QuotaStrategy =
  | { readonly blanketRule: 'ALLOW_ALL' | 'DENY_ALL' }
  | { readonly requestsPerTimeUnit: { readonly requests: number; readonly unit: string } }
  | {
      readonly tokenBucket: {
        readonly maxTokens: number;
        readonly tokensPerFill: number;
        readonly fillIntervalMs: number;
      };
    };

export interface QuotaAssignment {
  readonly bucket: Readonly<Record<string, string>>;
  readonly strategy: QuotaStrategy;
  /** assignment_time_to_live in ms (0: expired at once). */
  readonly ttlMs: number;
  /** When it expires, on the client's clock. */
  readonly expiresAtMs: number;
}

export interface RateLimitQuotaClientOptions {
  /** `host:port` or `unix:/path` of the rate limit service's gRPC listener. */
  readonly address: string;
  readonly domain: string;
  readonly credentials?: ChannelCredentials;
  /** How often the counts are reported (Envoy's reporting_interval); default 1 s; 0: only by reportNow(). */
  readonly reportIntervalMs?: number;
  /** What `take` decides for a bucket without a live assignment (Envoy's no_assignment_behavior); default allow. */
  readonly withoutAssignment?: 'allow' | 'deny';
  /** Milliseconds clock; injected for tests. */
  readonly now?: () => number;
}

interface Tracked {
  readonly bucket: Record<string, string>;
  allowed: number;
  denied: number;
  lastReportMs: number;
  assignment: QuotaAssignment | undefined;
  /** Local enforcement state: a window's start and count, or a token bucket's tokens and last fill. */
  windowStart: number;
  windowCount: number;
  tokens: number;
  lastFillMs: number;
}

const UNIT_MS: Readonly<Record<string, number>> = {
  SECOND: 1000,
  MINUTE: 60_000,
  HOUR: 3_600_000,
  DAY: 86_400_000,
  MONTH: 2_592_000_000,
  YEAR: 31_536_000_000,
};

interface RawDuration {
  readonly seconds?: number;
  readonly nanos?: number;
}

interface RawStrategy {
  readonly blanketRule?: string;
  readonly requestsPerTimeUnit?: { readonly requestsPerTimeUnit?: number; readonly timeUnit?: string };
  readonly tokenBucket?: {
    readonly maxTokens?: number;
    readonly tokensPerFill?: { readonly value?: number };
    readonly fillInterval?: RawDuration;
  };
}

/** A RateLimitQuotaResponse as proto-loader decodes it. */
interface RawResponse {
  readonly bucketAction?: ReadonlyArray<{
    readonly bucketId?: { readonly bucket?: Record<string, string> };
    readonly abandonAction?: object;
    readonly quotaAssignmentAction?: {
      readonly assignmentTimeToLive?: RawDuration;
      readonly rateLimitStrategy?: RawStrategy;
    };
  }>;
}

let serviceConstructor: ServiceClientConstructor | undefined;

function quotaService(): ServiceClientConstructor {
  if (serviceConstructor) return serviceConstructor;
  const definition = loadSync('envoy/service/rate_limit_quota/v3/rlqs.proto', {
    includeDirs: [protoRoot()],
    keepCase: false,
    longs: Number,
    enums: String,
    defaults: false,
    oneofs: true,
  });
  const root = loadPackageDefinition(definition) as unknown as {
    envoy: { service: { rate_limit_quota: { v3: { RateLimitQuotaService: ServiceClientConstructor } } } };
  };
  serviceConstructor = root.envoy.service.rate_limit_quota.v3.RateLimitQuotaService;
  return serviceConstructor;
}

/**
 * Local enforcement with central quota, for Node services: one RLQS stream to the rate limit
 * service. `take(bucket)` decides each request here, by the bucket's assignment (a blanket rule,
 * requests per time unit counted in fixed windows of the client's clock, or a token bucket), and
 * counts it; every report interval the counts go to the server, which answers with the bucket's
 * share of the configured limit. Emits 'assignment' (QuotaAssignment), 'abandon' (bucket) and
 * 'error' (the stream's ServiceError; the client then decides without assignments).
 */
export class RateLimitQuotaClient extends EventEmitter {
  private readonly client: Client;
  private readonly call: ClientDuplexStream<unknown, RawResponse>;
  private readonly buckets = new Map<string, Tracked>();
  private readonly now: () => number;
  private readonly timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RateLimitQuotaClientOptions) {
    super();
    this.now = options.now ?? Date.now;
    const Service = quotaService();
    this.client = new Service(options.address, options.credentials ?? grpcCredentials.createInsecure());
    this.call = (
      this.client as unknown as { streamRateLimitQuotas(): ClientDuplexStream<unknown, RawResponse> }
    ).streamRateLimitQuotas();
    this.call.on('data', (response: RawResponse) => this.apply(response));
    this.call.on('error', (error: ServiceError) => {
      if (this.listenerCount('error') > 0) this.emit('error', error);
    });
    const interval = options.reportIntervalMs ?? 1000;
    if (interval > 0) {
      this.timer = setInterval(() => this.reportNow(), interval);
      this.timer.unref();
    }
  }

  /** Decides one request for `bucket` locally and counts it for the next report. */
  take(bucket: Readonly<Record<string, string>>): boolean {
    const tracked = this.track(bucket);
    const allowed = this.decide(tracked);
    if (allowed) tracked.allowed++;
    else tracked.denied++;
    return allowed;
  }

  /** The bucket's live assignment, if any. */
  assignment(bucket: Readonly<Record<string, string>>): QuotaAssignment | undefined {
    const assignment = this.buckets.get(keyOf(bucket))?.assignment;
    return assignment && assignment.expiresAtMs > this.now() ? assignment : undefined;
  }

  /** Reports every bucket's counts since its last report (a bucket is subscribed by its first report). */
  reportNow(): void {
    if (this.buckets.size === 0) return;
    const now = this.now();
    const usages = [...this.buckets.values()].map((tracked) => {
      const elapsedMs = Math.max(1, now - tracked.lastReportMs);
      const usage = {
        bucketId: { bucket: tracked.bucket },
        timeElapsed: { seconds: Math.floor(elapsedMs / 1000), nanos: (elapsedMs % 1000) * 1e6 },
        numRequestsAllowed: tracked.allowed,
        numRequestsDenied: tracked.denied,
      };
      tracked.allowed = 0;
      tracked.denied = 0;
      tracked.lastReportMs = now;
      return usage;
    });
    this.call.write({ domain: this.options.domain, bucketQuotaUsages: usages });
  }

  close(): void {
    if (this.timer) clearInterval(this.timer);
    this.call.end();
    this.client.close();
  }

  private track(bucket: Readonly<Record<string, string>>): Tracked {
    const key = keyOf(bucket);
    let tracked = this.buckets.get(key);
    if (!tracked) {
      const now = this.now();
      tracked = {
        bucket: { ...bucket },
        allowed: 0,
        denied: 0,
        lastReportMs: now,
        assignment: undefined,
        windowStart: 0,
        windowCount: 0,
        tokens: 0,
        lastFillMs: now,
      };
      this.buckets.set(key, tracked);
    }
    return tracked;
  }

  private decide(tracked: Tracked): boolean {
    const now = this.now();
    const assignment = tracked.assignment;
    if (!assignment || assignment.expiresAtMs <= now) return this.options.withoutAssignment !== 'deny';
    const strategy = assignment.strategy;
    if ('blanketRule' in strategy) return strategy.blanketRule === 'ALLOW_ALL';
    if ('requestsPerTimeUnit' in strategy) {
      const unitMs = UNIT_MS[strategy.requestsPerTimeUnit.unit] ?? 1000;
      const windowStart = Math.floor(now / unitMs) * unitMs;
      if (windowStart !== tracked.windowStart) {
        tracked.windowStart = windowStart;
        tracked.windowCount = 0;
      }
      if (tracked.windowCount >= strategy.requestsPerTimeUnit.requests) return false;
      tracked.windowCount++;
      return true;
    }
    const { maxTokens, tokensPerFill, fillIntervalMs } = strategy.tokenBucket;
    const fills = Math.floor((now - tracked.lastFillMs) / fillIntervalMs);
    if (fills > 0) {
      tracked.tokens = Math.min(maxTokens, tracked.tokens + fills * tokensPerFill);
      tracked.lastFillMs += fills * fillIntervalMs;
    }
    if (tracked.tokens < 1) return false;
    tracked.tokens--;
    return true;
  }

  private apply(response: RawResponse): void {
    for (const action of response.bucketAction ?? []) {
      const bucket = action.bucketId?.bucket ?? {};
      const tracked = this.track(bucket);
      if (action.abandonAction) {
        this.buckets.delete(keyOf(bucket));
        this.emit('abandon', bucket);
        continue;
      }
      const assignment = action.quotaAssignmentAction;
      if (!assignment) continue;
      const ttl = assignment.assignmentTimeToLive ?? {};
      const ttlMs = (ttl.seconds ?? 0) * 1000 + Math.round((ttl.nanos ?? 0) / 1e6);
      const strategy = strategyOf(assignment.rateLimitStrategy ?? {});
      const previous = tracked.assignment;
      if ('tokenBucket' in strategy && !(previous && 'tokenBucket' in previous.strategy)) {
        // A new bucket starts full, as Envoy's token bucket does.
        tracked.tokens = strategy.tokenBucket.maxTokens;
        tracked.lastFillMs = this.now();
      }
      tracked.assignment = { bucket, strategy, ttlMs, expiresAtMs: this.now() + ttlMs };
      this.emit('assignment', tracked.assignment);
    }
  }
}

function strategyOf(strategy: RawStrategy): QuotaStrategy {
  if (strategy.requestsPerTimeUnit) {
    return {
      requestsPerTimeUnit: {
        requests: strategy.requestsPerTimeUnit.requestsPerTimeUnit ?? 0,
        unit: strategy.requestsPerTimeUnit.timeUnit ?? 'UNKNOWN',
      },
    };
  }
  if (strategy.tokenBucket) {
    const interval = strategy.tokenBucket.fillInterval ?? {};
    return {
      tokenBucket: {
        maxTokens: strategy.tokenBucket.maxTokens ?? 0,
        tokensPerFill: strategy.tokenBucket.tokensPerFill?.value ?? 1,
        fillIntervalMs: (interval.seconds ?? 0) * 1000 + Math.round((interval.nanos ?? 0) / 1e6),
      },
    };
  }
  return { blanketRule: strategy.blanketRule === 'DENY_ALL' ? 'DENY_ALL' : 'ALLOW_ALL' };
}

function keyOf(bucket: Readonly<Record<string, string>>): string {
  return JSON.stringify(Object.entries(bucket).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
