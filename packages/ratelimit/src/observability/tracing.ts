import { randomUUID } from 'node:crypto';
import { context, propagation, trace } from '@opentelemetry/api';
import { OTLPTraceExporter as GrpcTraceExporter } from '@opentelemetry/exporter-trace-otlp-grpc';
import { OTLPTraceExporter as HttpTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  BatchSpanProcessor,
  NodeTracerProvider,
  ParentBasedSampler,
  type SpanExporter,
  TraceIdRatioBasedSampler,
} from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';
import { SettingsError } from '../errors.js';
import { setTracingActive } from './spans.js';

export type ExporterProtocol = 'http' | 'grpc';

export interface TracingSettings {
  /** TRACING_ENABLED. */
  readonly enabled: boolean;
  /** TRACING_EXPORTER_PROTOCOL; the destination comes from the standard OTEL_EXPORTER_OTLP_* variables. */
  readonly exporterProtocol: ExporterProtocol;
  /** TRACING_SERVICE_NAME (default RateLimit). */
  readonly serviceName: string;
  /** TRACING_SERVICE_NAMESPACE (default empty: not set). */
  readonly serviceNamespace: string;
  /** TRACING_SERVICE_INSTANCE_ID (default: a random UUID v4 per process). */
  readonly serviceInstanceId: string;
  /** TRACING_SAMPLING_RATE, 0.0 to 1.0. */
  readonly samplingRate: number;
}

export interface Tracing {
  /** Sends every finished span now (tests, and shutdown). */
  forceFlush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function parseExporterProtocol(text: string): ExporterProtocol {
  const protocol = text.trim().toLowerCase();
  if (protocol === '' || protocol === 'http') return 'http';
  if (protocol === 'grpc') return 'grpc';
  throw new SettingsError('TRACING_EXPORTER_PROTOCOL', `unknown protocol '${text}'; use http or grpc`);
}

export function createSpanExporter(protocol: ExporterProtocol): SpanExporter {
  // Both exporters read OTEL_EXPORTER_OTLP_{,TRACES_}ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION themselves.
  return protocol === 'grpc' ? new GrpcTraceExporter() : new HttpTraceExporter();
}

const disabled: Tracing = { forceFlush: async () => {}, shutdown: async () => {} };

/**
 * Installs the OpenTelemetry Node tracer provider globally (W3C trace context, async-hooks context),
 * so the span helpers in spans.ts record real spans. With TRACING_ENABLED=false nothing is installed
 * and the API's no-op tracer makes those helpers free.
 */
export function startTracing(settings: TracingSettings, exporter?: SpanExporter): Tracing {
  if (!settings.enabled) return disabled;
  const resource = resourceFromAttributes({
    [ATTR_SERVICE_NAME]: settings.serviceName,
    'service.instance.id': settings.serviceInstanceId || randomUUID(),
    ...(settings.serviceNamespace !== '' && { 'service.namespace': settings.serviceNamespace }),
  });
  const provider = new NodeTracerProvider({
    resource,
    sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(settings.samplingRate) }),
    spanProcessors: [new BatchSpanProcessor(exporter ?? createSpanExporter(settings.exporterProtocol))],
  });
  provider.register();
  setTracingActive(true);
  return {
    forceFlush: () => provider.forceFlush(),
    shutdown: async () => {
      setTracingActive(false);
      await provider.shutdown();
      // Unregisters the globals, so a server started again in this process can install its own.
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
