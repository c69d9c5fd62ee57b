/**
 * Prototype (not in production, measured by the bench): ShouldRateLimit as a lean unary gRPC
 * handler on node:http2, sharing the service, the request check, the proto-loader decoder and
 * the response encoder with the grpc-js transport (src/server/grpc.ts), with the same stats.
 * It covers what the bench drives: one uncompressed message per call, the 4 MiB receive limit,
 * status codes and messages. Not covered (the reasons grpc-js stays, see the README): the health
 * service, TLS and its reload, mTLS, UDS, max connection age, deadlines, compression, dynamic
 * metadata, trace context.
 */
import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { performance } from 'node:perf_hooks';
import type { RateLimitRequest, RateLimitResponse } from '../../src/protocol/messages.js';
import { loadProtos } from '../../src/protocol/proto.js';
import { encodeRateLimitResponseProto } from '../../src/server/grpc-codec.js';
import { checkRequestBytes } from '../../src/server/grpc-request-check.js';
import { type RateLimitService, tooManyDescriptors } from '../../src/service/ratelimit-service.js';
import { STAT } from '../../src/stats/names.js';
import type { StatStore } from '../../src/stats/store.js';

const PATH = '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';
/** gRPC status codes (grpc/status.proto). */
const UNKNOWN = 2;
const INVALID_ARGUMENT = 3;
const RESOURCE_EXHAUSTED = 8;
const UNIMPLEMENTED = 12;
const INTERNAL = 13;
const PREFIX_BYTES = 5;

export interface H2GrpcOptions {
  readonly maxReceiveMessageBytes: number;
  readonly maxDescriptors: number;
}

/** The handler for an HTTP/2 server's 'stream' event. */
export function grpcStreamHandler(
  service: RateLimitService,
  stats: StatStore,
  options: H2GrpcOptions,
): (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => void {
  const method = loadProtos().rateLimitService.service.ShouldRateLimit;
  const decode = method?.requestDeserialize as (bytes: Buffer) => RateLimitRequest;
  const requests = stats.counter(`${STAT.serverRoot}ShouldRateLimit.total_requests`);
  const time = stats.timer(`${STAT.serverRoot}ShouldRateLimit.response_time`);
  const maxBytes = options.maxReceiveMessageBytes + PREFIX_BYTES;

  const answer = (stream: ServerHttp2Stream, started: number, response: RateLimitResponse) => {
    time.record(performance.now() - started);
    if (stream.destroyed) return;
    const message = encodeRateLimitResponseProto(response);
    const frame = Buffer.allocUnsafe(PREFIX_BYTES + message.length);
    frame[0] = 0;
    frame.writeUInt32BE(message.length, 1);
    message.copy(frame, PREFIX_BYTES);
    stream.respond({ ':status': 200, 'content-type': 'application/grpc' }, { waitForTrailers: true });
    stream.once('wantTrailers', () => stream.sendTrailers({ 'grpc-status': '0' }));
    stream.end(frame);
  };
  const fail = (stream: ServerHttp2Stream, code: number, message: string) => {
    if (stream.destroyed) return;
    // Trailers-only: the status goes in the one HEADERS frame that ends the stream.
    stream.respond(
      {
        ':status': 200,
        'content-type': 'application/grpc',
        'grpc-status': String(code),
        'grpc-message': encodeURIComponent(message),
      },
      { endStream: true },
    );
  };

  const call = (stream: ServerHttp2Stream, body: Buffer) => {
    const started = performance.now();
    requests.inc();
    if (body.length < PREFIX_BYTES || body.readUInt32BE(1) !== body.length - PREFIX_BYTES) {
      fail(stream, INTERNAL, 'expected exactly one gRPC message');
      return;
    }
    if (body[0] !== 0) {
      fail(stream, UNIMPLEMENTED, 'compressed messages are not supported');
      return;
    }
    const bytes = body.subarray(PREFIX_BYTES);
    const problem = checkRequestBytes(bytes, options.maxDescriptors);
    if (problem?.kind === 'invalid-utf8') {
      time.record(performance.now() - started);
      fail(stream, INVALID_ARGUMENT, `rate limit request: ${problem.field} is not valid UTF-8`);
      return;
    }
    let result: RateLimitResponse | Promise<RateLimitResponse>;
    try {
      if (problem) throw service.refuse(tooManyDescriptors(options.maxDescriptors));
      result = service.shouldRateLimit(decode(bytes));
    } catch (error) {
      time.record(performance.now() - started);
      fail(stream, UNKNOWN, (error as Error).message);
      return;
    }
    if (result instanceof Promise) {
      result.then(
        (response) => answer(stream, started, response),
        (error: unknown) => {
          time.record(performance.now() - started);
          fail(stream, UNKNOWN, (error as Error).message);
        },
      );
    } else {
      answer(stream, started, result);
    }
  };

  return (stream, headers) => {
    stream.on('error', () => {});
    if (headers[':path'] !== PATH || headers[':method'] !== 'POST') {
      fail(stream, UNIMPLEMENTED, `unknown method ${String(headers[':path'])}`);
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    stream.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxBytes) {
        fail(stream, RESOURCE_EXHAUSTED, `received message larger than max (${received} vs. ${maxBytes})`);
        stream.close();
      } else {
        chunks.push(chunk);
      }
    });
    stream.on('end', () => {
      if (received <= maxBytes)
        call(stream, chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
    });
  };
}
