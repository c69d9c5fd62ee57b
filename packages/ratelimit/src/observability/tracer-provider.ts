// The OpenTelemetry SDK, loaded by startTracing (tracing.ts) only when tracing is on.
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
import { setTracingActive } from './spans.js';
import type { ExporterProtocol, Tracing, TracingSettings } from './tracing-settings.js';

function createSpanExporter(protocol: ExporterProtocol): SpanExporter {
  // Both exporters read OTEL_EXPORTER_OTLP_{,TRACES_}ENDPOINT, _HEADERS, _TIMEOUT, _COMPRESSION themselves.
  return protocol === 'grpc' ? new GrpcTraceExporter() : new HttpTraceExporter();
}

/** The OpenTelemetry Node tracer provider, installed globally (W3C trace context, async-hooks context). */
export function startTracerProvider(settings: TracingSettings, exporter?: SpanExporter): Tracing {
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
