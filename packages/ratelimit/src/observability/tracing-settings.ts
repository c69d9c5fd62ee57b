// What tracing is started with and what it gives back: shared by tracing.ts and tracer-provider.ts.
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
