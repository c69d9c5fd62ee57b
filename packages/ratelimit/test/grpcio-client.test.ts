// A second gRPC implementation against the service: Python's grpcio (the C-core, Debian
// python3-grpcio), on the transport of the run (GRPC_TRANSPORT; CI runs both).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { CounterStore } from '../src/backends/store.js';
import { decodeResponse, RLS_PATH, requestBytes } from './h2/raw-client.js';
import { startTestServer, type TestServer } from './helpers/server.js';
import { TestPki } from './ops/test-pki.js';

/** Debian's python3-grpcio installs for the system interpreter. */
const PYTHON = '/usr/bin/python3';
const SCRIPT = fileURLToPath(new URL('./fixtures/grpcio_client.py', import.meta.url));
const HEALTH_WATCH = '/grpc.health.v1.Health/Watch';
const CONFIG = {
  'd.yaml': 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 2 }\n',
};

function grpcioMissing(): string | undefined {
  try {
    execFileSync(PYTHON, ['-c', 'import grpc'], { stdio: 'ignore' });
    return undefined;
  } catch {
    return `${PYTHON} cannot import grpc: install the Debian package python3-grpcio`;
  }
}
const missing = grpcioMissing();
if (missing && process.env.CI === 'true') throw new Error(missing);

interface Command {
  target: string;
  path?: string;
  request?: Buffer;
  timeout?: number;
  metadata?: Array<[string, string]>;
  tls?: { ca: string; cert?: string; key?: string };
  gzip?: boolean;
  stream?: boolean;
}
type Line = { message?: string; code?: number; details?: string };

/** Runs one call; `onLine` sees each line as it comes (a Watch's messages while the stream is open). */
function grpcio(command: Command, onLine: (line: Line) => void = () => {}): Promise<Line[]> {
  const child = spawn(PYTHON, [
    SCRIPT,
    JSON.stringify({
      ...command,
      path: command.path ?? RLS_PATH,
      request: (command.request ?? Buffer.alloc(0)).toString('hex'),
    }),
  ]);
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const lines: Line[] = [];
  createInterface({ input: child.stdout }).on('line', (text) => {
    const line = JSON.parse(text) as Line;
    lines.push(line);
    onLine(line);
  });
  return new Promise((resolve, reject) => {
    child.on('close', (code) =>
      code === 0 ? resolve(lines) : reject(new Error(`grpcio client exited ${code}: ${stderr}`)),
    );
  });
}

const status = (lines: Line[]) => lines.at(-1) as { code: number; details: string };
const overallCode = (lines: Line[]) =>
  decodeResponse(Buffer.from(lines[0]?.message ?? '', 'hex')).overallCode;

/** Calls whose value is `slow` wait for the test (a deadline must end them); others answer. */
function slowStore(): CounterStore {
  return {
    kind: 'memory',
    hit: (hits) =>
      hits[0]?.key.includes('_slow_')
        ? new Promise(() => {})
        : Promise.resolve(hits.map((hit) => hit.addend)),
    isHealthy: () => true,
    onHealthChange: () => {},
    close: () => Promise.resolve(),
  };
}

describe('grpcio (C-core) client', { skip: missing }, () => {
  let server: TestServer;
  let target: string;
  before(async () => {
    server = await startTestServer(CONFIG, {}, { overrides: { store: slowStore() } });
    target = `127.0.0.1:${server.server.ports.grpc}`;
  });
  after(() => server.stop());

  test('unary ShouldRateLimit with metadata, -bin included', async () => {
    const lines = await grpcio({
      target,
      request: requestBytes('d', 'k', 'py'),
      metadata: [
        ['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01'],
        ['x-request-id', 'abc'],
        ['x-trace-bin', '00ff10'],
      ],
    });
    assert.equal(status(lines).code, 0, status(lines).details);
    assert.equal(overallCode(lines), 'OK');
  });

  test('a gzip-compressed request (grpc-encoding: gzip)', async () => {
    // The C-core sends a message uncompressed when gzip would not make it smaller: this one shrinks.
    const lines = await grpcio({ target, request: requestBytes('d', 'k', 'z'.repeat(2000)), gzip: true });
    assert.equal(status(lines).code, 0, status(lines).details);
    assert.equal(overallCode(lines), 'OK');
  });

  test('an unknown method is UNIMPLEMENTED; a malformed request is refused', async () => {
    const unknown = await grpcio({ target, path: '/envoy.service.ratelimit.v3.RateLimitService/Nope' });
    assert.equal(status(unknown).code, 12);
    const invalid = await grpcio({ target, request: Buffer.from([0x0a, 0x01, 0xff]) });
    assert.equal(status(invalid).code, 3, status(invalid).details);
  });

  test('a deadline: DEADLINE_EXCEEDED when the answer takes longer', async () => {
    const started = Date.now();
    const lines = await grpcio({ target, request: requestBytes('d', 'k', 'slow'), timeout: 0.2 });
    assert.equal(status(lines).code, 4);
    assert.ok(Date.now() - started < 5000);
  });

  test('health Watch streams SERVING, then every change, until its deadline ends it', async () => {
    // HealthCheckRequest{service = "ratelimit"}; the answer's field 1 is 1 (SERVING) or 2 (NOT_SERVING).
    const request = Buffer.concat([Buffer.from([0x0a, 9]), Buffer.from('ratelimit')]);
    let seen = 0;
    const lines = await grpcio({ target, path: HEALTH_WATCH, request, stream: true, timeout: 2 }, (line) => {
      if (line.message === undefined) return;
      seen++;
      if (seen === 1) server.server.health.fail('sigterm');
      if (seen === 2) server.server.health.ok('sigterm');
    });
    const messages = lines.filter((line) => line.message !== undefined).map((line) => line.message);
    assert.deepEqual(messages, ['0801', '0802', '0801']);
    assert.equal(status(lines).code, 4, 'DEADLINE_EXCEEDED ends the stream');
  });
});

describe('grpcio (C-core) client over TLS and mTLS', { skip: missing }, () => {
  const pki = missing ? undefined : new TestPki();
  after(() => pki?.cleanup());

  test('TLS with the server CA', async (t) => {
    const pair = (pki as TestPki).issue('server', ['localhost']);
    const server = await startTestServer(CONFIG, {
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: pair.cert,
      GRPC_SERVER_TLS_KEY: pair.key,
    });
    t.after(() => server.stop());
    const lines = await grpcio({
      target: `localhost:${server.server.ports.grpc}`,
      request: requestBytes('d', 'k', 'tls'),
      tls: { ca: (pki as TestPki).path('ca.crt') },
    });
    assert.equal(status(lines).code, 0, status(lines).details);
    assert.equal(overallCode(lines), 'OK');
  });

  test('mTLS: a client certificate with the SAN passes; none, or one without the SAN, is refused', async (t) => {
    const own = pki as TestPki;
    const pair = own.issue('server', ['localhost']);
    const envoy = own.issue('envoy', ['envoy.internal']);
    const intruder = own.issue('intruder', ['intruder.internal']);
    const server = await startTestServer(CONFIG, {
      GRPC_SERVER_USE_TLS: 'true',
      GRPC_SERVER_TLS_CERT: pair.cert,
      GRPC_SERVER_TLS_KEY: pair.key,
      GRPC_CLIENT_TLS_CACERT: own.path('ca.crt'),
      GRPC_CLIENT_TLS_SAN: 'envoy.internal',
    });
    t.after(() => server.stop());
    const call = (tls: Command['tls']) =>
      grpcio({
        target: `localhost:${server.server.ports.grpc}`,
        request: requestBytes('d', 'k', 'mtls'),
        tls,
        timeout: 5,
      });
    const ca = own.path('ca.crt');
    const trusted = await call({ ca, ...envoy });
    assert.equal(status(trusted).code, 0, status(trusted).details);
    assert.equal(status(await call({ ca })).code, 14, 'no certificate: UNAVAILABLE');
    // grpc-js checks the SAN per call (UNAUTHENTICATED); h2 cuts the connection after the handshake.
    const wrongSan = status(await call({ ca, ...intruder })).code;
    assert.equal(wrongSan, process.env.GRPC_TRANSPORT === 'h2' ? 14 : 16);
  });
});
