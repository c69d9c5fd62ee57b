import type { SpanExporter } from '@opentelemetry/sdk-trace-node';
import { SettingsError } from '../errors.js';
import type { ExporterProtocol, Tracing, TracingSettings } from './tracing-settings.js';

export type { ExporterProtocol, Tracing, TracingSettings } from './tracing-settings.js';

export function parseExporterProtocol(text: string): ExporterProtocol {
  const protocol = text.trim().toLowerCase();
  if (protocol === '' || protocol === 'http') return 'http';
  if (protocol === 'grpc') return 'grpc';
  throw new SettingsError('TRACING_EXPORTER_PROTOCOL', `unknown protocol '${text}'; use http or grpc`);
}

const disabled: Tracing = { forceFlush: async () => {}, shutdown: async () => {} };

/**
 * Installs the OpenTelemetry Node tracer provider globally (tracer-provider.ts), so the span helpers
 * in spans.ts record real spans. With TRACING_ENABLED=false nothing is installed and the API's no-op
 * tracer makes those helpers free; nor is the SDK loaded, which takes about 300 ms of every start.
 */
export async function startTracing(settings: TracingSettings, exporter?: SpanExporter): Promise<Tracing> {
  if (!settings.enabled) return disabled;
  const { startTracerProvider } = await import('./tracer-provider.js');
  return startTracerProvider(settings, exporter);
}
