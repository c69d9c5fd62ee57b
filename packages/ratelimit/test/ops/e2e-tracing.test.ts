import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Metadata } from '@grpc/grpc-js';
import { request, startTestServer } from '../helpers/server.js';
import { otlpReceiver } from './otlp-receiver.js';

test('TRACING_ENABLED: ShouldRateLimit and store spans continue the caller trace; the CLI -oltp-protocol flag starts one', async (t) => {
  const receiver = await otlpReceiver();
  t.after(() => receiver.close());
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  const server = await startTestServer(
    {
      'd.yaml':
        'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 5 }\n',
    },
    { TRACING_ENABLED: 'true', TRACING_SERVICE_NAME: 'rls-under-test', TRACING_EXPORTER_PROTOCOL: 'http' },
  );
  let stopped = false;
  t.after(() => (stopped ? undefined : server.stop()));

  // The CLI client, with its own tracer, sends its trace context along.
  const bin = fileURLToPath(new URL('../../bin/ratelimit-client.ts', import.meta.url));
  await promisify(execFile)(
    process.execPath,
    [
      '--import',
      'tsx',
      bin,
      '-dial_string',
      `127.0.0.1:${server.server.ports.grpc}`,
      '-domain',
      'd',
      '-descriptors',
      'k=cli',
      '-oltp-protocol',
      'http',
    ],
    { env: { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint } },
  );

  // A caller (Envoy) that sends a W3C traceparent.
  const traceId = '0af7651916cd43dd8448eb211c80319c';
  const metadata = new Metadata();
  metadata.set('traceparent', `00-${traceId}-b7ad6b7169203331-01`);
  await server.client.shouldRateLimit(request('d', ['k=envoy']), metadata);
  await server.stop();
  stopped = true;

  const serverSpans = receiver.spans.filter((span) => span.service === 'rls-under-test');
  const fromEnvoy = serverSpans.find((span) => span.name === 'ShouldRateLimit' && span.traceId === traceId);
  assert.ok(fromEnvoy, JSON.stringify(receiver.spans));
  assert.equal(fromEnvoy.parentSpanId, 'b7ad6b7169203331');
  const storeSpan = serverSpans.find((span) => span.name === 'memory hit' && span.traceId === traceId);
  assert.equal(storeSpan?.parentSpanId, fromEnvoy.spanId);

  const clientSpan = receiver.spans.find((span) => span.service === 'RateLimitClient');
  assert.ok(clientSpan, 'the CLI exported its span');
  const continued = serverSpans.find(
    (span) => span.name === 'ShouldRateLimit' && span.traceId === clientSpan.traceId,
  );
  assert.equal(continued?.parentSpanId, clientSpan.spanId);
});
