import type { Metadata } from '@grpc/grpc-js';
import {
  type Attributes,
  type Context,
  context,
  propagation,
  SpanKind,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapSetter,
  trace,
} from '@opentelemetry/api';

const tracer = () => trace.getTracer('ratelimit');

// Set by startTracing: without an SDK the spans would be no-ops, so the hot path skips them entirely.
let active = false;

export function setTracingActive(value: boolean): void {
  active = value;
}

/** Whether spans are recorded; hot paths check it to skip building span options at all. */
export function isTracingActive(): boolean {
  return active;
}

const metadataGetter: TextMapGetter<Metadata> = {
  keys: (metadata) => Object.keys(metadata.getMap()),
  get: (metadata, key) => {
    const values = metadata.get(key).map(String);
    return values.length === 0 ? undefined : values;
  },
};

const metadataSetter: TextMapSetter<Metadata> = {
  set: (metadata, key, value) => metadata.set(key, value),
};

/** The caller's trace context (e.g. Envoy's `traceparent`) carried in gRPC request metadata. */
export function contextFromMetadata(metadata: Metadata): Context {
  return propagation.extract(context.active(), metadata, metadataGetter);
}

/** Puts the active trace context into outgoing gRPC metadata (the CLI client, the xDS client). */
export function injectContext(metadata: Metadata): Metadata {
  propagation.inject(context.active(), metadata, metadataSetter);
  return metadata;
}

/**
 * Runs `work` inside a span that ends when the promise settles; a rejection marks the span as an
 * error and records the exception. The parent is `parent`, else the trace context in the gRPC
 * `metadata`, else the active context. Without startTracing it only runs `work`.
 */
export async function withSpan<T>(
  name: string,
  options: { attributes?: Attributes; kind?: SpanKind; parent?: Context; metadata?: Metadata },
  work: () => Promise<T>,
): Promise<T> {
  if (!active) return work();
  const { kind = SpanKind.INTERNAL, attributes, metadata } = options;
  const parent = options.parent ?? (metadata ? contextFromMetadata(metadata) : context.active());
  return tracer().startActiveSpan(name, { kind, ...(attributes && { attributes }) }, parent, async (span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Times `work`, which answers at once or with a promise, in a span that does not become the
 * parent of the spans started inside it: like the reference's `_, span := tracer.Start(ctx, …)`,
 * which drops the new context, so its store span is the sibling of its `ShouldRateLimit
 * Execution` span. A throw or rejection marks the span as an error. Call only while tracing is
 * active (isTracingActive), so a hot path without tracing pays nothing.
 */
export function timedSpan<T>(
  name: string,
  attributes: Attributes,
  work: () => T | Promise<T>,
): T | Promise<T> {
  const span = tracer().startSpan(name, { attributes }, context.active());
  const failed = (error: unknown) => {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
    span.end();
  };
  let result: T | Promise<T>;
  try {
    result = work();
  } catch (error) {
    failed(error);
    throw error;
  }
  if (!(result instanceof Promise)) {
    span.end();
    return result;
  }
  return result.then(
    (value) => {
      span.end();
      return value;
    },
    (error: unknown) => {
      failed(error);
      throw error;
    },
  );
}

export { SpanKind };
