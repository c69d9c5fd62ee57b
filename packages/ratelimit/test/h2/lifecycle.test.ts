// The h2 transport's connections: TLS with reload, mTLS with the SAN checked at the handshake, unix
// sockets, max connection age, keepalive and the handshake bounds, on H2GrpcServer itself.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { once } from 'node:events';
import { readFileSync, renameSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect as http2Connect } from 'node:http2';
import { connect as netConnect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { connect as tlsConnect } from 'node:tls';
import { credentials, type ServiceDefinition, status } from '@grpc/grpc-js';
import { H2GrpcServer, type H2ServerOptions } from '../../src/server/h2/server.js';
import { echo, echoClient, echoService } from '../ops/raw-grpc.js';
import { TestPki } from '../ops/test-pki.js';

const BASE: H2ServerOptions = {
  maxReceiveMessageBytes: 4 * 1024 * 1024,
  maxConnectionAgeMs: 24 * 3600_000,
  maxConnectionAgeGraceMs: 3600_000,
  handshakeTimeoutMs: 120_000,
};

/** Echo, and Wait: a unary method that answers when the test releases it. */
function serverWith(options: Partial<H2ServerOptions>): { server: H2GrpcServer; release(): void } {
  const server = new H2GrpcServer({ ...BASE, ...options });
  server.addService(echoService, {
    echo: (call: { request: Buffer }, callback: (error: null, reply: Buffer) => void) =>
      callback(null, call.request),
  });
  let waiting: Array<() => void> = [];
  server.addService(WAIT_SERVICE, {
    wait: (call: { request: Buffer }, callback: (error: null, reply: Buffer) => void) =>
      waiting.push(() => callback(null, call.request)),
  });
  return {
    server,
    release: () => {
      for (const answer of waiting) answer();
      waiting = [];
    },
  };
}

const WAIT_SERVICE: ServiceDefinition = {
  wait: { ...(echoService.echo as ServiceDefinition[string]), path: '/test.Wait/Wait' },
};

function fingerprintOf(certFile: string): string {
  return new X509Certificate(readFileSync(certFile)).fingerprint256;
}

/** The certificate a fresh handshake presents; and whether the server then starts HTTP/2 (sends its SETTINGS). */
function handshake(
  port: number,
  ca: Buffer,
  client?: { cert: string; key: string },
): Promise<{ fingerprint: string; serverSentBytes: number }> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({
      host: '127.0.0.1',
      port,
      ca,
      servername: 'localhost',
      ALPNProtocols: ['h2'],
      ...(client ? { cert: readFileSync(client.cert), key: readFileSync(client.key) } : {}),
    });
    let received = 0;
    let fingerprint = '';
    socket.on('secureConnect', () => {
      fingerprint = socket.getPeerCertificate().fingerprint256;
      // The client's preface: the server answers with its SETTINGS once its HTTP/2 session starts.
      socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00');
      setTimeout(() => socket.destroy(), 300);
    });
    socket.on('data', (chunk: Buffer) => {
      received += chunk.length;
    });
    socket.on('error', () => {});
    socket.on('close', () =>
      fingerprint ? resolve({ fingerprint, serverSentBytes: received }) : reject(new Error('no handshake')),
    );
  });
}

test('TLS: a rotated certificate is presented to new handshakes without a restart (setSecureContext)', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const first = pki.issue('server', ['localhost']);
  const second = pki.issue('server-next', ['localhost']);
  const reloads: string[] = [];
  const { server } = serverWith({
    tls: { certFile: first.cert, keyFile: first.key },
    tlsPollIntervalMs: 100,
    tlsObserver: { reloaded: () => reloads.push('ok'), failed: (error) => reloads.push(error.message) },
  });
  const port = await server.bind('127.0.0.1:0');
  t.after(() => server.forceShutdown());
  const ca = readFileSync(pki.path('ca.crt'));
  const client = echoClient(`localhost:${port}`, credentials.createSsl(ca));
  t.after(() => client.close());
  assert.equal(await echo(client, 'hello'), 'hello');
  const before = fingerprintOf(first.cert);
  assert.equal((await handshake(port, ca)).fingerprint, before);
  renameSync(second.key, first.key);
  renameSync(second.cert, first.cert);
  const deadline = Date.now() + 10_000;
  let presented = before;
  while (presented === before && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    presented = (await handshake(port, ca)).fingerprint;
  }
  assert.equal(presented, fingerprintOf(first.cert));
  assert.ok(reloads.includes('ok'));
  const fresh = echoClient(`localhost:${port}`, credentials.createSsl(ca));
  assert.equal(await echo(fresh, 'after rotation'), 'after rotation');
  fresh.close();
});

test('mTLS: no client certificate fails the handshake; a certificate without the SAN is cut off before HTTP/2 starts', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const serverPair = pki.issue('server', ['localhost']);
  const good = pki.issue('client-good', ['envoy.internal']);
  const wrong = pki.issue('client-wrong', ['intruder.internal']);
  const { server } = serverWith({
    tls: {
      certFile: serverPair.cert,
      keyFile: serverPair.key,
      clientCaFile: pki.path('ca.crt'),
      clientSan: 'envoy.internal',
    },
  });
  const port = await server.bind('127.0.0.1:0');
  t.after(() => server.forceShutdown());
  const ca = readFileSync(pki.path('ca.crt'));
  const target = `localhost:${port}`;
  const withCert = (pair: { cert: string; key: string }) =>
    credentials.createSsl(ca, readFileSync(pair.key), readFileSync(pair.cert));
  const clients = [
    echoClient(target, withCert(good)),
    echoClient(target, credentials.createSsl(ca)),
    echoClient(target, withCert(wrong)),
  ] as const;
  t.after(() => {
    for (const client of clients) client.close();
  });
  assert.equal(await echo(clients[0], 'trusted'), 'trusted');
  await assert.rejects(echo(clients[1], 'anonymous', 2000), { code: status.UNAVAILABLE });
  // No call of the wrong SAN reaches the server: the connection never gets to HTTP/2.
  await assert.rejects(echo(clients[2], 'wrong san', 2000), { code: status.UNAVAILABLE });
  assert.ok((await handshake(port, ca, good)).serverSentBytes > 0, 'the trusted client gets the SETTINGS');
  assert.equal((await handshake(port, ca, wrong)).serverSentBytes, 0, 'the wrong SAN gets no HTTP/2 at all');
});

test('a unix socket (GRPC_UDS)', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'rl-h2-uds-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const { server } = serverWith({});
  const path = join(dir, 'grpc.sock');
  assert.equal(await server.bind(`unix:${path}`), 0);
  t.after(() => server.forceShutdown());
  const client = echoClient(`unix:${path}`, credentials.createInsecure());
  t.after(() => client.close());
  assert.equal(await echo(client, 'over uds'), 'over uds');
});

test('GRPC_MAX_CONNECTION_AGE: a GOAWAY after the age (±10 %), calls in flight finish within the grace, then the close', async (t) => {
  const { server, release } = serverWith({ maxConnectionAgeMs: 400, maxConnectionAgeGraceMs: 300 });
  const port = await server.bind('127.0.0.1:0');
  t.after(() => server.forceShutdown());
  // Ages with ±10 % jitter differ from connection to connection.
  const ages: number[] = [];
  for (let i = 0; i < 2; i++) {
    const session = http2Connect(`http://127.0.0.1:${port}`);
    session.on('error', () => {});
    const started = Date.now();
    const inFlight = session.request({
      ':method': 'POST',
      ':path': '/test.Wait/Wait',
      'content-type': 'application/grpc',
    });
    inFlight.on('error', () => {});
    inFlight.end(Buffer.from([0, 0, 0, 0, 1, 0x41]));
    const trailers = new Promise<Record<string, unknown> | undefined>((resolve) => {
      inFlight.on('trailers', resolve);
      inFlight.on('close', () => resolve(undefined));
    });
    inFlight.resume();
    const [code] = (await once(session, 'goaway')) as [number];
    ages.push(Date.now() - started);
    assert.equal(code, 0, 'NO_ERROR: a graceful GOAWAY');
    if (i === 0) {
      // Answered within the grace: the call completes.
      release();
      assert.equal((await trailers)?.['grpc-status'], '0');
    } else {
      // Still in flight after the grace: the connection is closed.
      const closedAt = Date.now();
      await once(session, 'close');
      assert.ok(Date.now() - closedAt >= 200, `closed ${Date.now() - closedAt} ms after the GOAWAY`);
      release();
    }
    session.destroy();
  }
  for (const age of ages) assert.ok(age >= 340 && age < 2000, `GOAWAY after ${age} ms`);
});

test('keepalive: the server PINGs an idle connection and closes one that does not answer', async (t) => {
  const { server } = serverWith({ keepaliveTimeMs: 100, keepaliveTimeoutMs: 100 });
  const port = await server.bind('127.0.0.1:0');
  t.after(() => server.forceShutdown());
  const session = http2Connect(`http://127.0.0.1:${port}`);
  t.after(() => session.destroy());
  await once(session, 'ping');
  await new Promise((resolve) => setTimeout(resolve, 400));
  assert.equal(session.closed, false, 'a client that answers the PINGs keeps its connection');
  // A raw client sends its preface and SETTINGS, then never answers anything.
  const socket = netConnect(port, '127.0.0.1');
  socket.on('error', () => {});
  socket.write('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00');
  socket.resume();
  const started = Date.now();
  await once(socket, 'close');
  assert.ok(Date.now() - started < 5000);
});

test('GRPC_HANDSHAKE_TIMEOUT bounds the TLS handshake too', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const pair = pki.issue('server', ['localhost']);
  const { server } = serverWith({ tls: { certFile: pair.cert, keyFile: pair.key }, handshakeTimeoutMs: 300 });
  const port = await server.bind('127.0.0.1:0');
  t.after(() => server.forceShutdown());
  const socket = netConnect(port, '127.0.0.1');
  socket.on('error', () => {});
  const started = Date.now();
  await once(socket, 'close');
  const held = Date.now() - started;
  assert.ok(held >= 250 && held < 5000, `held ${held} ms`);
});

test('unreadable TLS files are a clear settings error when the server binds', async () => {
  const { server } = serverWith({
    tls: { certFile: '/nonexistent/cert.pem', keyFile: '/nonexistent/key.pem' },
  });
  await assert.rejects(
    server.bind('127.0.0.1:0'),
    /GRPC_SERVER_TLS_CERT: cannot load the gRPC server certificate '\/nonexistent\/cert.pem'/,
  );
});
