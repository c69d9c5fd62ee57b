import { performance } from 'node:perf_hooks';
import {
  type MethodDefinition,
  type ServerUnaryCall,
  type ServerWritableStream,
  type ServiceDefinition,
  type sendUnaryData,
  status,
} from '@grpc/grpc-js';
import { isTracingActive, SpanKind, withSpan } from '../observability/spans.js';
import type { JsonValue, RateLimitRequest, RateLimitResponse } from '../protocol/messages.js';
import { loadProtos } from '../protocol/proto.js';
import { type RateLimitService, tooManyDescriptors } from '../service/ratelimit-service.js';
import { STAT } from '../stats/names.js';
import type { StatStore } from '../stats/store.js';
import { encodeRateLimitResponseProto } from './grpc-codec.js';
import { checkRequestBytes, type RequestProblem } from './grpc-request-check.js';
import type { GrpcTransport } from './grpc-transport.js';
import type { HealthModel } from './health.js';

export interface GrpcServerOptions {
  /** GRPC_TRANSPORT: grpc-js, or the node:http2 transport of h2/. */
  readonly transport: 'grpc-js' | 'h2';
  /** GRPC_MAX_CONNECTION_AGE in ms; the transport adds ±10% jitter. */
  readonly maxConnectionAgeMs: number;
  readonly maxConnectionAgeGraceMs: number;
  /** The reference's grpc-go default receive limit is 4 MiB. */
  readonly maxReceiveMessageBytes: number;
  /** MAX_DESCRIPTORS_PER_REQUEST: requests with more are refused before they are decoded. */
  readonly maxDescriptors: number;
}

/** The name the health service reports the rate limit service under. */
export const HEALTH_SERVICE_NAME = 'ratelimit';

/**
 * The gRPC services on `server`: envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit and
 * grpc.health.v1.Health, with the `ratelimit_server.<Method>.*` stats of the reference's
 * unary interceptor.
 */
export function addGrpcServices(
  server: GrpcTransport,
  service: RateLimitService,
  health: HealthModel,
  stats: StatStore,
  maxDescriptors: number,
): void {
  const protos = loadProtos();
  const rlsRequests = stats.counter(`${STAT.serverRoot}ShouldRateLimit.total_requests`);
  const rlsTime = stats.timer(`${STAT.serverRoot}ShouldRateLimit.response_time`);
  const checkRequests = stats.counter(`${STAT.serverRoot}Check.total_requests`);
  const checkTime = stats.timer(`${STAT.serverRoot}Check.response_time`);

  const reply = (callback: sendUnaryData<unknown>, started: number, response: RateLimitResponse) => {
    rlsTime.record(performance.now() - started);
    callback(null, response);
  };
  const fail = (callback: sendUnaryData<unknown>, started: number, error: unknown) => {
    rlsTime.record(performance.now() - started);
    // The reference returns a plain Go error, which grpc-go sends as UNKNOWN.
    callback({ code: status.UNKNOWN, details: (error as Error).message });
  };
  const refuse = (callback: sendUnaryData<unknown>, started: number, problem: RequestProblem) => {
    if (problem.kind === 'invalid-utf8') {
      rlsTime.record(performance.now() - started);
      callback({
        code: status.INVALID_ARGUMENT,
        details: `rate limit request: ${problem.field} is not valid UTF-8`,
      });
    } else {
      // The same answer as the service's own check of the decoded request.
      fail(callback, started, service.refuse(tooManyDescriptors(maxDescriptors)));
    }
  };
  server.addService(withCodecs(protos.rateLimitService.service, maxDescriptors), {
    // Not async: with the memory store the answer is there at once and no promise is made.
    ShouldRateLimit(
      call: ServerUnaryCall<RateLimitRequest, unknown>,
      callback: sendUnaryData<unknown>,
    ): void {
      const started = performance.now();
      rlsRequests.inc();
      const problem = refused.get(call.request);
      if (problem !== undefined) {
        refuse(callback, started, problem);
        return;
      }
      // Without tracing, no span options and no closure per call.
      const answer = isTracingActive() ? tracedAnswer(service, call) : service.shouldRateLimit(call.request);
      answer.then(
        (response) => reply(callback, started, response),
        (error: unknown) => fail(callback, started, error),
      );
    },
  });

  server.addService(protos.health.service, {
    Check(call: ServerUnaryCall<{ service: string }, unknown>, callback: sendUnaryData<unknown>): void {
      const started = performance.now();
      checkRequests.inc();
      const servingStatus = healthStatus(call.request.service, health);
      checkTime.record(performance.now() - started);
      if (servingStatus === undefined) callback({ code: status.NOT_FOUND, details: 'unknown service' });
      else callback(null, { status: servingStatus });
    },
    Watch(call: ServerWritableStream<{ service: string }, unknown>): void {
      const name = call.request.service;
      const send = () => call.write({ status: healthStatus(name, health) ?? 'SERVICE_UNKNOWN' });
      send();
      const unsubscribe = health.onChange(send);
      watches.add(call);
      const forget = () => {
        unsubscribe();
        watches.delete(call);
      };
      call.on('cancelled', forget);
      call.on('close', forget);
    },
  });
  const watches = new Set<ServerWritableStream<{ service: string }, unknown>>();
  healthWatches.set(server, watches);
}

/** Each server's open Health/Watch streams, which only end when the client or the server ends them. */
const healthWatches = new WeakMap<GrpcTransport, Set<ServerWritableStream<{ service: string }, unknown>>>();

/**
 * Ends the open Health/Watch streams (after their last NOT_SERVING): a graceful stop waits for
 * every open call, and these never finish on their own.
 */
export function endHealthWatches(server: GrpcTransport): void {
  for (const call of healthWatches.get(server) ?? []) call.end();
}

/** The method's full name, which otelgrpc (the reference's interceptor) gives its server span. */
const SHOULD_RATE_LIMIT_SPAN = 'envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

function tracedAnswer(
  service: RateLimitService,
  call: ServerUnaryCall<RateLimitRequest, unknown>,
): Promise<RateLimitResponse> {
  return withSpan(
    SHOULD_RATE_LIMIT_SPAN,
    {
      kind: SpanKind.SERVER,
      metadata: call.metadata,
      attributes: {
        'rpc.system': 'grpc',
        'rpc.service': 'envoy.service.ratelimit.v3.RateLimitService',
        'rpc.method': 'ShouldRateLimit',
      },
    },
    async () => service.shouldRateLimit(call.request),
  );
}

function healthStatus(name: string, health: HealthModel): 'SERVING' | 'NOT_SERVING' | undefined {
  // The default service "" always serves; only "ratelimit" follows the health model.
  if (name === '') return 'SERVING';
  if (name === HEALTH_SERVICE_NAME) return health.isHealthy() ? 'SERVING' : 'NOT_SERVING';
  return undefined;
}

/**
 * Requests refused from their bytes (see checkRequestBytes), left undecoded: the deserializer
 * cannot answer the call itself, so it hands the handler an empty request and the reason.
 */
const refused = new WeakMap<RateLimitRequest, RequestProblem>();

/**
 * The service definition with ShouldRateLimit's requests checked for invalid UTF-8 and its
 * responses encoded by encodeRateLimitResponseProto; responses with dynamic metadata (a
 * google.protobuf.Struct) still go through protobufjs.
 */
function withCodecs(definition: ServiceDefinition, maxDescriptors: number): ServiceDefinition {
  const method = definition.ShouldRateLimit as MethodDefinition<RateLimitRequest, unknown>;
  const decode = method.requestDeserialize;
  const requestDeserialize = (bytes: Buffer): RateLimitRequest => {
    const problem = checkRequestBytes(bytes, maxDescriptors);
    if (problem === undefined) return decode(bytes);
    const request: RateLimitRequest = { domain: '', descriptors: [], hitsAddend: 0 };
    refused.set(request, problem);
    return request;
  };
  const protobufjs = method.responseSerialize;
  const responseSerialize = (response: RateLimitResponse): Buffer =>
    response.dynamicMetadata
      ? protobufjs({ ...response, dynamicMetadata: toStruct(response.dynamicMetadata) })
      : encodeRateLimitResponseProto(response);
  return { ...definition, ShouldRateLimit: { ...method, requestDeserialize, responseSerialize } };
}

function toStruct(object: { [key: string]: JsonValue }): unknown {
  const fields: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) fields[key] = toValue(value);
  return { fields };
}

function toValue(value: JsonValue): unknown {
  if (value === null) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  return { structValue: toStruct(value) };
}
