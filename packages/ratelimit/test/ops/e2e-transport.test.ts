import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { connect as http2Connect } from 'node:http2';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { credentials, status } from '@grpc/grpc-js';
import { RateLimitClient } from '../../src/client/client.js';
import { request, startTestServer } from '../helpers/server.js';
import { TestPki } from './test-pki.js';

const config = {
  'd.yaml': 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 5 }\n',
};
const run = promisify(execFile);
const clientBin = fileURLToPath(new URL('../../bin/ratelimit-client.ts', import.meta.url));

test('GRPC_SERVER_USE_TLS with mTLS: trusted clients pass, no certificate or the wrong SAN are rejected', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const serverPair = pki.issue('server', ['localhost']);
  const envoy = pki.issue('envoy', ['envoy.internal']);
  const intruder = pki.issue('intruder', ['intruder.internal']);
  const server = await startTestServer(config, {
    GRPC_SERVER_USE_TLS: 'true',
    GRPC_SERVER_TLS_CERT: serverPair.cert,
    GRPC_SERVER_TLS_KEY: serverPair.key,
    GRPC_CLIENT_TLS_CACERT: pki.path('ca.crt'),
    GRPC_CLIENT_TLS_SAN: 'envoy.internal',
  });
  t.after(() => server.stop());
  const target = `localhost:${server.server.ports.grpc}`;
  const ca = readFileSync(pki.path('ca.crt'));
  const withCert = (pair: { cert: string; key: string }) =>
    credentials.createSsl(ca, readFileSync(pair.key), readFileSync(pair.cert));

  const trusted = new RateLimitClient(target, withCert(envoy));
  const anonymous = new RateLimitClient(target, credentials.createSsl(ca));
  const wrongSan = new RateLimitClient(target, withCert(intruder));
  t.after(() => {
    for (const client of [trusted, anonymous, wrongSan]) client.close();
  });
  const response = await trusted.shouldRateLimit(request('d', ['k=v']));
  assert.equal(response.overallCode, 'OK');
  await assert.rejects(anonymous.shouldRateLimit(request('d', ['k=v'])), { code: status.UNAVAILABLE });
  // grpc-js has no hook inside the handshake, so it refuses each call of the wrong SAN; the h2
  // transport cuts the connection at the end of the handshake, so the client never connects.
  const wrongSanCode = process.env.GRPC_TRANSPORT === 'h2' ? status.UNAVAILABLE : status.UNAUTHENTICATED;
  await assert.rejects(wrongSan.shouldRateLimit(request('d', ['k=v'])), { code: wrongSanCode });

  // The CLI client's TLS flags reach the same server.
  const { stdout } = await run(process.execPath, [
    '--import',
    'tsx',
    clientBin,
    '-dial_string',
    target,
    '-domain',
    'd',
    '-descriptors',
    'k=v',
    '-grpc-use-tls',
    '-grpc-server-ca-file',
    pki.path('ca.crt'),
    '-grpc-cert-file',
    envoy.cert,
    '-grpc-key-file',
    envoy.key,
  ]);
  assert.match(
    stdout,
    /response: statuses:\{code:OK current_limit:\{requests_per_unit:5 unit:MINUTE\} limit_remaining:3/,
  );
});

test('GRPC_MAX_CONNECTION_AGE ends connections with a GOAWAY', async (t) => {
  const server = await startTestServer(config, {
    GRPC_MAX_CONNECTION_AGE: '300ms',
    GRPC_MAX_CONNECTION_AGE_GRACE: '100ms',
  });
  t.after(() => server.stop());
  const session = http2Connect(`http://127.0.0.1:${server.server.ports.grpc}`);
  t.after(() => session.destroy());
  const started = Date.now();
  const [errorCode] = (await once(session, 'goaway')) as [number];
  const age = Date.now() - started;
  assert.equal(errorCode, 0, 'NO_ERROR: a graceful GOAWAY');
  // 300 ms ± 10% jitter, plus scheduling slack.
  assert.ok(age >= 250, `GOAWAY after ${age} ms`);
});
