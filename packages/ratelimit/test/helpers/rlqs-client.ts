import {
  type ChannelCredentials,
  type ClientDuplexStream,
  credentials as grpcCredentials,
  Metadata,
  makeGenericClientConstructor,
  type ServiceError,
} from '@grpc/grpc-js';
import protobuf from 'protobufjs';
import { protoRoot } from '../../src/protocol/proto.js';

/**
 * A test client that speaks RLQS as Envoy does, through grpc-js, with messages encoded and decoded
 * by protobufjs from the repository's proto files, not by the server's own codec. Reports go in
 * either wire form of field 2: `repeated BucketQuotaUsage` (rlqs.proto as written) or
 * `map<uint64, BucketQuotaUsage>` (declared here), or as raw bytes.
 */
const root = new protobuf.Root();
root.resolvePath = (_origin, target) => `${protoRoot()}/${target}`;
root.loadSync('envoy/service/rate_limit_quota/v3/rlqs.proto', { keepCase: true });
protobuf.parse(
  `syntax = "proto3";
   package rlqs.test;
   message MapFormReports {
     string domain = 1;
     map<uint64, envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports.BucketQuotaUsage> bucket_quota_usages = 2;
   }`,
  root,
  { keepCase: true },
);
root.resolveAll();
const Reports = root.lookupType('envoy.service.rate_limit_quota.v3.RateLimitQuotaUsageReports');
const MapReports = root.lookupType('rlqs.test.MapFormReports');
const Response = root.lookupType('envoy.service.rate_limit_quota.v3.RateLimitQuotaResponse');

export type WireForm = 'repeated' | 'map';

export interface Usage {
  readonly bucket: Record<string, string>;
  /** time_elapsed in seconds (fractions allowed) */
  readonly elapsed?: number;
  readonly allowed?: number;
  readonly denied?: number;
}

/** A RateLimitQuotaUsageReports in the given wire form. */
export function encodeReport(domain: string, usages: readonly Usage[], form: WireForm = 'repeated'): Buffer {
  const encoded = usages.map((usage) => {
    const elapsed = usage.elapsed ?? 1;
    const seconds = Math.floor(elapsed);
    return {
      bucket_id: { bucket: usage.bucket },
      time_elapsed: { seconds, nanos: Math.round((elapsed - seconds) * 1e9) },
      num_requests_allowed: usage.allowed ?? 0,
      num_requests_denied: usage.denied ?? 0,
    };
  });
  if (form === 'repeated') {
    return Buffer.from(Reports.encode(Reports.fromObject({ domain, bucket_quota_usages: encoded })).finish());
  }
  const map: Record<string, unknown> = {};
  encoded.forEach((usage, i) => {
    // Envoy keys the map by a hash of the bucket id; any distinct numbers will do here.
    map[String(1000 + i)] = usage;
  });
  return Buffer.from(MapReports.encode(MapReports.fromObject({ domain, bucket_quota_usages: map })).finish());
}

/** One decoded BucketAction, flattened for assertions. */
export interface Action {
  readonly bucket: Record<string, string>;
  readonly kind: 'assign' | 'abandon';
  readonly ttlMs?: number;
  readonly strategy?: {
    readonly blanket?: 'ALLOW_ALL' | 'DENY_ALL';
    readonly requestsPerTimeUnit?: { readonly requests: number; readonly unit: string };
    readonly tokenBucket?: {
      readonly maxTokens: number;
      readonly tokensPerFill: number;
      readonly fillIntervalMs: number;
    };
  };
}

interface RawDuration {
  readonly seconds?: number;
  readonly nanos?: number;
}

/** A BucketAction as protobufjs' toObject gives it. */
interface RawAction {
  readonly bucket_id?: { readonly bucket?: Record<string, string> };
  readonly abandon_action?: object;
  readonly quota_assignment_action?: {
    readonly assignment_time_to_live?: RawDuration;
    readonly rate_limit_strategy?: {
      readonly strategy?: string;
      readonly blanket_rule?: 'ALLOW_ALL' | 'DENY_ALL';
      readonly requests_per_time_unit?: {
        readonly requests_per_time_unit?: number;
        readonly time_unit?: string;
      };
      readonly token_bucket?: {
        readonly max_tokens?: number;
        readonly tokens_per_fill?: { readonly value?: number };
        readonly fill_interval?: RawDuration;
      };
    };
  };
}

export function decodeResponse(bytes: Buffer): Action[] {
  const message = Response.toObject(Response.decode(bytes), {
    longs: Number,
    enums: String,
    defaults: false,
    oneofs: true,
  }) as { bucket_action?: RawAction[] };
  return (message.bucket_action ?? []).map((action) => {
    const bucket = action.bucket_id?.bucket ?? {};
    if (action.abandon_action) return { bucket, kind: 'abandon' };
    const assignment = action.quota_assignment_action ?? {};
    const ttl = assignment.assignment_time_to_live;
    const ttlMs = ttl === undefined ? undefined : (ttl.seconds ?? 0) * 1000 + (ttl.nanos ?? 0) / 1e6;
    const strategy = assignment.rate_limit_strategy ?? {};
    const decoded: Record<string, unknown> = {};
    if (strategy.strategy === 'blanket_rule') decoded.blanket = strategy.blanket_rule ?? 'ALLOW_ALL';
    if (strategy.requests_per_time_unit) {
      decoded.requestsPerTimeUnit = {
        requests: strategy.requests_per_time_unit.requests_per_time_unit ?? 0,
        unit: strategy.requests_per_time_unit.time_unit ?? 'UNKNOWN',
      };
    }
    if (strategy.token_bucket) {
      const interval = strategy.token_bucket.fill_interval ?? {};
      decoded.tokenBucket = {
        maxTokens: strategy.token_bucket.max_tokens ?? 0,
        tokensPerFill: strategy.token_bucket.tokens_per_fill?.value ?? 1,
        fillIntervalMs: (interval.seconds ?? 0) * 1000 + (interval.nanos ?? 0) / 1e6,
      };
    }
    return { bucket, kind: 'assign', ...(ttlMs === undefined ? {} : { ttlMs }), strategy: decoded };
  });
}

/** A RateLimitQuotaService client whose messages are raw bytes (also the RLQS benchmark's, bench/scenarios/rlqs.ts). */
export const QuotaClient = makeGenericClientConstructor(
  {
    StreamRateLimitQuotas: {
      path: '/envoy.service.rate_limit_quota.v3.RateLimitQuotaService/StreamRateLimitQuotas',
      requestStream: true,
      responseStream: true,
      requestSerialize: (bytes: Buffer) => bytes,
      requestDeserialize: (bytes: Buffer) => bytes,
      responseSerialize: (bytes: Buffer) => bytes,
      responseDeserialize: (bytes: Buffer) => bytes,
    },
  },
  'RateLimitQuotaService',
);

/** Opens a StreamRateLimitQuotas call of raw byte messages on `client`. */
export function openQuotaCall(
  client: InstanceType<typeof QuotaClient>,
  metadata: Metadata = new Metadata(),
): ClientDuplexStream<Buffer, Buffer> {
  return (
    client as unknown as { StreamRateLimitQuotas(metadata: Metadata): ClientDuplexStream<Buffer, Buffer> }
  ).StreamRateLimitQuotas(metadata);
}

/**
 * One RLQS stream as a test sees it: `send` raw reports, `next()` waits for the next response
 * (its actions), `status()` for the stream's final status.
 */
export class QuotaStreamClient {
  private readonly client: InstanceType<typeof QuotaClient>;
  private readonly call: ClientDuplexStream<Buffer, Buffer>;
  private readonly responses: Action[][] = [];
  private readonly waiters: Array<(actions: Action[]) => void> = [];
  private readonly ended: Promise<ServiceError | 'ok'>;

  constructor(
    address: string,
    credentials: ChannelCredentials = grpcCredentials.createInsecure(),
    metadata: Metadata = new Metadata(),
  ) {
    this.client = new QuotaClient(address, credentials);
    this.call = openQuotaCall(this.client, metadata);
    this.call.on('data', (bytes: Buffer) => {
      const actions = decodeResponse(bytes);
      const waiter = this.waiters.shift();
      if (waiter) waiter(actions);
      else this.responses.push(actions);
    });
    this.ended = new Promise((resolve) => {
      this.call.on('error', (error: ServiceError) => resolve(error));
      this.call.on('status', (status: { code: number }) => {
        if (status.code === 0) resolve('ok');
      });
    });
  }

  send(bytes: Buffer): void {
    this.call.write(bytes);
  }

  report(domain: string, usages: readonly Usage[], form: WireForm = 'repeated'): void {
    this.send(encodeReport(domain, usages, form));
  }

  /** The next response's actions. */
  next(): Promise<Action[]> {
    const queued = this.responses.shift();
    if (queued) return Promise.resolve(queued);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Responses received and not yet taken by next(). */
  get pending(): number {
    return this.responses.length;
  }

  /** Resolves with the stream's error status, or 'ok'. */
  status(): Promise<ServiceError | 'ok'> {
    return this.ended;
  }

  /** Half-closes the stream (the client is done) and waits for the server to end it. */
  async end(): Promise<ServiceError | 'ok'> {
    this.call.end();
    return this.ended;
  }

  close(): void {
    this.call.cancel();
    this.client.close();
  }
}
