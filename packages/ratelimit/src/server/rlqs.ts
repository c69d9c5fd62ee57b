import { type ServerDuplexStream, type ServiceDefinition, status } from '@grpc/grpc-js';
import { isTracingActive, SpanKind, withSpan } from '../observability/spans.js';
import { type BucketAction, QuotaStreamError, type UsageReport } from '../service/quota-messages.js';
import type { QuotaService, QuotaStream } from '../service/quota-service.js';
import { STAT } from '../stats/names.js';
import type { StatStore } from '../stats/store.js';
import type { GrpcTransport } from './grpc-transport.js';
import { type DecodedReport, decodeReport, encodeResponse } from './rlqs-codec.js';

export const RLQS_SERVICE = 'envoy.service.rate_limit_quota.v3.RateLimitQuotaService';
const METHOD = 'StreamRateLimitQuotas';

/**
 * The RateLimitQuotaService definition with the hand-written codec of rlqs-codec.ts: a report
 * reaches the handler decoded and checked, or as the problem that ends its stream.
 */
const DEFINITION: ServiceDefinition = {
  [METHOD]: {
    path: `/${RLQS_SERVICE}/${METHOD}`,
    requestStream: true,
    responseStream: true,
    requestSerialize: (value: Buffer) => value,
    requestDeserialize: (bytes: Buffer): DecodedReport => decodeReport(bytes),
    responseSerialize: (actions: readonly BucketAction[]) => encodeResponse(actions),
    responseDeserialize: (bytes: Buffer) => bytes,
  },
};

type Call = ServerDuplexStream<DecodedReport, readonly BucketAction[]>;

const CODES = { INVALID_ARGUMENT: status.INVALID_ARGUMENT, RESOURCE_EXHAUSTED: status.RESOURCE_EXHAUSTED };

/**
 * Serves envoy.service.rate_limit_quota.v3.RateLimitQuotaService/StreamRateLimitQuotas on
 * `server` (the ShouldRateLimit server: same port, TLS and unix socket). Reports of one stream
 * are taken one after the other, in order; a malformed report or a bound past its setting ends
 * that stream only, with INVALID_ARGUMENT or RESOURCE_EXHAUSTED.
 */
export function addQuotaService(server: GrpcTransport, quota: QuotaService, stats: StatStore): void {
  const invalidReports = stats.counter(`${STAT.serverRoot}${METHOD}.invalid_reports`);
  const streamsTotal = stats.counter(`${STAT.serverRoot}${METHOD}.total_requests`);
  server.addService(DEFINITION, {
    [METHOD](call: Call): void {
      streamsTotal.inc();
      let stream: QuotaStream;
      let ended = false;
      const fail = (error: unknown) => {
        if (ended) return;
        ended = true;
        if (error instanceof QuotaStreamError) {
          if (error.code === 'INVALID_ARGUMENT') invalidReports.inc();
          call.emit('error', { code: CODES[error.code], details: error.message });
        } else {
          call.emit('error', { code: status.INTERNAL, details: (error as Error).message });
        }
        quota.close(stream);
      };
      try {
        stream = quota.open({
          send: (actions) => {
            if (!ended) call.write(actions);
          },
          end: () => {
            if (ended) return;
            ended = true;
            call.end();
          },
        });
      } catch (error) {
        ended = true;
        call.emit('error', {
          code: CODES[(error as QuotaStreamError).code] ?? status.INTERNAL,
          details: (error as Error).message,
        });
        return;
      }
      // One report at a time, in arrival order: a report the service answers at once is taken at
      // once; while one waits on the store, the reports after it queue behind it.
      let waiting: Promise<void> | undefined;
      const queue = (next: Promise<void>) => {
        const queued = next.finally(() => {
          if (waiting === queued) waiting = undefined;
        });
        waiting = queued;
      };
      const takeReport = (decoded: DecodedReport): Promise<void> | undefined => {
        if (ended) return;
        if ('problem' in decoded) {
          fail(new QuotaStreamError('INVALID_ARGUMENT', decoded.problem));
          return;
        }
        try {
          return take(quota, stream, decoded, call)?.catch(fail);
        } catch (error) {
          fail(error);
        }
      };
      const finish = () => {
        quota.close(stream);
        if (!ended) {
          ended = true;
          call.end();
        }
      };
      call.on('data', (decoded: DecodedReport) => {
        if (waiting) queue(waiting.then(() => takeReport(decoded)));
        else {
          const taking = takeReport(decoded);
          if (taking) queue(taking);
        }
      });
      call.on('end', () => {
        if (waiting) queue(waiting.then(finish));
        else finish();
      });
      const forget = () => {
        ended = true;
        quota.close(stream);
      };
      call.on('cancelled', forget);
      call.on('close', forget);
      call.on('error', forget);
    },
  });
}

/** The method's full name, which the span of each report carries. */
const SPAN_NAME = `${RLQS_SERVICE}/${METHOD}`;

function take(
  quota: QuotaService,
  stream: QuotaStream,
  report: UsageReport,
  call: Call,
): Promise<void> | undefined {
  if (!isTracingActive()) return quota.report(stream, report);
  return withSpan(
    SPAN_NAME,
    {
      kind: SpanKind.SERVER,
      metadata: call.metadata,
      attributes: {
        'rpc.system': 'grpc',
        'rpc.service': RLQS_SERVICE,
        'rpc.method': METHOD,
        'rlqs.domain': report.domain,
        'rlqs.buckets': report.usages.length,
      },
    },
    async () => {
      await quota.report(stream, report);
    },
  );
}
