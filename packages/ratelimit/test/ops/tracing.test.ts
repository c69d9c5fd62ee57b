import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { injectContext, SpanKind, withSpan } from '../../src/observability/spans.js';
import { parseExporterProtocol, startTracing } from '../../src/observability/tracing.js';
import { otlpReceiver } from './otlp-receiver.js';

test('spans reach an OTLP/HTTP receiver on loopback, continuing the trace from gRPC metadata', async () => {
  const receiver = await otlpReceiver();
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  const tracing = await startTracing({
    enabled: true,
    exporterProtocol: 'http',
    serviceName: 'RateLimit',
    serviceNamespace: 'edge',
    serviceInstanceId: 'instance-1',
    samplingRate: 1,
  });
  try {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const incoming = new Metadata();
    incoming.set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
    const outgoing = await withSpan(
      'ShouldRateLimit',
      { kind: SpanKind.SERVER, metadata: incoming, attributes: { domain: 'basic' } },
      () => withSpan('redis pipeline', {}, async () => injectContext(new Metadata())),
    );
    await assert.rejects(
      withSpan('failing store call', {}, async () => {
        throw new Error('connection refused');
      }),
      /connection refused/,
    );
    await tracing.forceFlush();

    const spans = new Map(receiver.spans.map((span) => [span.name, span]));
    const server = spans.get('ShouldRateLimit');
    const store = spans.get('redis pipeline');
    assert.ok(server && store);
    assert.equal(server.service, 'RateLimit');
    assert.equal(server.traceId, traceId);
    assert.equal(server.parentSpanId, '00f067aa0ba902b7');
    assert.equal(store.parentSpanId, server.spanId);
    assert.equal(spans.get('failing store call')?.status?.code, 2);
    // The trace context travels on to outgoing calls.
    assert.match(String(outgoing.get('traceparent')[0]), new RegExp(`^00-${traceId}-${store.spanId}-01$`));
    assert.deepEqual(receiver.resources[0], {
      'service.name': 'RateLimit',
      'service.namespace': 'edge',
      'service.instance.id': 'instance-1',
    });
  } finally {
    await tracing.shutdown();
    receiver.close();
  }
});

test('the CLI protocol flag rejects unknown protocols; disabled tracing installs nothing', async () => {
  assert.throws(() => parseExporterProtocol('udp'), /TRACING_EXPORTER_PROTOCOL: unknown protocol 'udp'/);
  assert.equal(parseExporterProtocol('GRPC'), 'grpc');
  const off = await startTracing({
    enabled: false,
    exporterProtocol: 'http',
    serviceName: 'RateLimit',
    serviceNamespace: '',
    serviceInstanceId: '',
    samplingRate: 1,
  });
  await off.forceFlush();
  await off.shutdown();
});
