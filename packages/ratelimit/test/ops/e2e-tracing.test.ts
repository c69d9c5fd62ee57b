import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Metadata } from '@grpc/grpc-js';
import { startMemcached, startRedis } from '@platform/testkit';
import { request, startTestServer } from '../helpers/server.js';
import { otlpReceiver } from './otlp-receiver.js';

const SERVER_SPAN = 'envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit';

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
  const json = await server.json(
    JSON.stringify({ domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'json' }] }] }),
  );
  assert.equal(json.status, 200);
  await server.stop();
  stopped = true;

  const serverSpans = receiver.spans.filter((span) => span.service === 'rls-under-test');
  const fromEnvoy = serverSpans.find((span) => span.name === SERVER_SPAN && span.traceId === traceId);
  assert.ok(fromEnvoy, JSON.stringify(receiver.spans));
  assert.equal(fromEnvoy.parentSpanId, 'b7ad6b7169203331');
  assert.equal(fromEnvoy.kind, 2, 'a SERVER span');
  assert.equal(fromEnvoy.attributes['rpc.method'], 'ShouldRateLimit');
  // As in the reference, the execution span and the store span are both children of the server span.
  const execution = serverSpans.find(
    (span) => span.name === 'ShouldRateLimit Execution' && span.traceId === traceId,
  );
  assert.equal(execution?.parentSpanId, fromEnvoy.spanId);
  assert.equal(execution?.attributes.domain, 'd');
  assert.match(String(execution?.attributes['request string']), /"envoy"/);
  const storeSpan = serverSpans.find(
    (span) => span.name === 'Memory Store Execution' && span.traceId === traceId,
  );
  assert.equal(storeSpan?.parentSpanId, fromEnvoy.spanId);
  assert.equal(storeSpan?.attributes['keys length'], 1);

  // /json: the execution span too, and the encoding and writing span; like the reference's
  // (which start from context.Background()), root spans.
  const jsonExecution = serverSpans.find(
    (span) =>
      span.name === 'ShouldRateLimit Execution' &&
      String(span.attributes['request string']).includes('"json"'),
  );
  assert.ok(jsonExecution, JSON.stringify(serverSpans.map((span) => span.name)));
  assert.ok(!jsonExecution.parentSpanId);
  const remaining = serverSpans.find((span) => span.name === 'NewJsonHandler Remaining Execution');
  assert.ok(remaining && !remaining.parentSpanId);
  assert.match(String(remaining.attributes.response), /"overallCode":"OK"/);

  const clientSpan = receiver.spans.find((span) => span.service === 'RateLimitClient');
  assert.ok(clientSpan, 'the CLI exported its span');
  const continued = serverSpans.find(
    (span) => span.name === SERVER_SPAN && span.traceId === clientSpan.traceId,
  );
  assert.equal(continued?.parentSpanId, clientSpan.spanId);
});

test("TRACING_ENABLED: the Redis and Memcached store spans have the reference's names and attributes", async (t) => {
  const receiver = await otlpReceiver();
  t.after(() => receiver.close());
  process.env.OTEL_EXPORTER_OTLP_ENDPOINT = receiver.endpoint;
  const tracing = {
    TRACING_ENABLED: 'true',
    TRACING_SERVICE_NAME: 'rls-stores',
    TRACING_EXPORTER_PROTOCOL: 'http',
  };
  const config = {
    'd.yaml': 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 5 }\n',
  };

  const redis = await startRedis();
  t.after(() => redis.stop());
  const onRedis = await startTestServer(config, {
    ...tracing,
    BACKEND_TYPE: 'redis',
    REDIS_URL: redis.address,
  });
  await onRedis.client.shouldRateLimit(request('d', ['k=a'], ['k=b']));
  await onRedis.stop();

  const memcached = await startMemcached();
  t.after(() => memcached.stop());
  const onMemcache = await startTestServer(config, {
    ...tracing,
    BACKEND_TYPE: 'memcache',
    MEMCACHE_HOST_PORT: `127.0.0.1:${memcached.port}`,
  });
  await onMemcache.client.shouldRateLimit(request('d', ['k=a'], ['k=b'], ['k=c']));
  await onMemcache.stop();

  const spans = receiver.spans.filter((span) => span.service === 'rls-stores');
  const pipeline = spans.find((span) => span.name === 'Redis Pipeline Execution');
  assert.deepEqual(pipeline?.attributes, { 'pipeline length': 4, 'perSecondPipeline length': 0 });
  const fetched = spans.find((span) => span.name === 'Memcached Fetch Execution');
  assert.deepEqual(fetched?.attributes, { 'keysToGet length': 3 });
  for (const store of [pipeline, fetched]) {
    const parent = spans.find((span) => span.spanId === store?.parentSpanId);
    assert.equal(parent?.name, SERVER_SPAN);
  }
});
