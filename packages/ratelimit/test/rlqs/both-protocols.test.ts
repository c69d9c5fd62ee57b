import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { credentials } from '@grpc/grpc-js';
import { RateLimitClient } from '../../src/client/client.js';
import { QuotaStreamClient } from '../helpers/rlqs-client.js';
import { counter, eventually, request, startTestServer } from '../helpers/server.js';
import { TestPki } from '../ops/test-pki.js';

const config = (perMinute: number) => `domain: both
descriptors:
  - {key: name, value: api, rate_limit: {unit: minute, requests_per_unit: ${perMinute}}}
`;

test('ShouldRateLimit and an RLQS stream on one port and one config; a reload changes both', async (t) => {
  const server = await startTestServer(
    { 'both.yaml': config(3) },
    { RLQS_ENABLED: 'true', RLQS_REBALANCE_INTERVAL: '1h', RUNTIME_WATCH_ROOT: 'false' },
  );
  t.after(() => server.stop());
  const quota = new QuotaStreamClient(`127.0.0.1:${server.server.ports.grpc}`);
  t.after(() => quota.close());

  // The descriptor name=api and the bucket {name: api} find the same rule.
  const decisions = [];
  for (let i = 0; i < 4; i++)
    decisions.push((await server.client.shouldRateLimit(request('both', ['name=api']))).overallCode);
  assert.deepEqual(decisions, ['OK', 'OK', 'OK', 'OVER_LIMIT']);
  quota.report('both', [{ bucket: { name: 'api' } }]);
  assert.deepEqual((await quota.next())[0]?.strategy, {
    requestsPerTimeUnit: { requests: 3, unit: 'MINUTE' },
  });

  const loads = counter(server.server, 'ratelimit.service.config_load_success');
  await writeFile(join(server.configDir, 'both.yaml'), config(10));
  await eventually(() => counter(server.server, 'ratelimit.service.config_load_success') > loads);
  // ShouldRateLimit counts on in the same window against the new limit; the stream is pushed it.
  const after = await server.client.shouldRateLimit(request('both', ['name=api']));
  assert.equal(after.overallCode, 'OK');
  assert.deepEqual((after.statuses as Array<Record<string, unknown>>)[0]?.currentLimit, {
    name: '',
    requestsPerUnit: 10,
    unit: 'MINUTE',
  });
  await server.server.quota?.rebalance();
  assert.deepEqual((await quota.next())[0]?.strategy, {
    requestsPerTimeUnit: { requests: 10, unit: 'MINUTE' },
  });
});

test('RLQS is served with mTLS on the gRPC port, and on a unix socket', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const serverPair = pki.issue('server', ['localhost']);
  const envoy = pki.issue('envoy', ['envoy.internal']);
  const tls = await startTestServer(
    { 'both.yaml': config(3) },
    {
      RLQS_ENABLED: 'true',
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: serverPair.cert,
      GRPC_SERVER_TLS_KEY: serverPair.key,
      GRPC_CLIENT_TLS_CACERT: pki.path('ca.crt'),
      GRPC_CLIENT_TLS_SAN: 'envoy.internal',
    },
  );
  t.after(() => tls.stop());
  const ca = readFileSync(pki.path('ca.crt'));
  const overTls = new QuotaStreamClient(
    `localhost:${tls.server.ports.grpc}`,
    credentials.createSsl(ca, readFileSync(envoy.key), readFileSync(envoy.cert)),
  );
  t.after(() => overTls.close());
  overTls.report('both', [{ bucket: { name: 'api' } }]);
  assert.equal((await overTls.next())[0]?.kind, 'assign');

  const socketDir = await mkdtemp(join(tmpdir(), 'rlqs-uds-'));
  t.after(() => rm(socketDir, { recursive: true, force: true }));
  const socket = join(socketDir, 'ratelimit.sock');
  const uds = await startTestServer({ 'both.yaml': config(3) }, { RLQS_ENABLED: 'true', GRPC_UDS: socket });
  t.after(() => uds.stop());
  const overUds = new QuotaStreamClient(`unix:${socket}`);
  t.after(() => overUds.close());
  overUds.report('both', [{ bucket: { name: 'api' } }]);
  assert.deepEqual((await overUds.next())[0]?.strategy, {
    requestsPerTimeUnit: { requests: 3, unit: 'MINUTE' },
  });
  const rls = new RateLimitClient(`unix:${socket}`);
  t.after(() => rls.close());
  assert.equal((await rls.shouldRateLimit(request('both', ['name=api']))).overallCode, 'OK');
});
