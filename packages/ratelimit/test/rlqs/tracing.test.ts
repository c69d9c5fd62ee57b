import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Metadata } from '@grpc/grpc-js';
import { QuotaStreamClient } from '../helpers/rlqs-client.js';
import { startTestServer } from '../helpers/server.js';
import { otlpReceiver } from '../ops/otlp-receiver.js';

test("TRACING_ENABLED: each report gets a server span that continues the stream's traceparent", async (t) => {
  const receiver = await otlpReceiver();
  t.after(() => receiver.close());
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  const server = await startTestServer(
    {
      'q.yaml':
        'domain: q\ndescriptors:\n  - {key: name, value: api, rate_limit: {unit: minute, requests_per_unit: 6}}\n',
    },
    { RLQS_ENABLED: 'true', TRACING_ENABLED: 'true', TRACING_SERVICE_NAME: 'rlqs-under-test' },
  );
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const metadata = new Metadata();
  metadata.set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`);
  const stream = new QuotaStreamClient(`127.0.0.1:${server.server.ports.grpc}`, undefined, metadata);
  stream.report('q', [{ bucket: { name: 'api' } }, { bucket: { name: 'other' } }]);
  await stream.next();
  stream.close();
  await server.stop();
  const span = receiver.spans.find(
    (found) =>
      found.service === 'rlqs-under-test' &&
      found.name === 'envoy.service.rate_limit_quota.v3.RateLimitQuotaService/StreamRateLimitQuotas',
  );
  assert.ok(span, JSON.stringify(receiver.spans));
  assert.equal(span.traceId, traceId);
  assert.equal(span.parentSpanId, '00f067aa0ba902b7');
  assert.equal(span.kind, 2, 'a SERVER span');
  assert.equal(span.attributes['rlqs.domain'], 'q');
  assert.equal(span.attributes['rlqs.buckets'], 2);
});
