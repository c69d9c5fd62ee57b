import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { readFileSync, renameSync } from 'node:fs';
import { test } from 'node:test';
import { connect } from 'node:tls';
import { credentials, Server, type ServerCredentials, status } from '@grpc/grpc-js';
import { ReloadingServerCredentials } from '../../src/server/tls/reloading-credentials.js';
import { addEchoService, echo, echoClient } from './raw-grpc.js';
import { TestPki } from './test-pki.js';

async function startServer(serverCredentials: ServerCredentials): Promise<{ server: Server; port: number }> {
  const server = new Server();
  addEchoService(server);
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', serverCredentials, (error, bound) =>
      error ? reject(error) : resolve(bound),
    ),
  );
  return { server, port };
}

/** The SHA-256 fingerprint of the certificate a fresh TLS handshake presents. */
function presentedFingerprint(port: number, ca: Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      { host: '127.0.0.1', port, ca, servername: 'localhost', ALPNProtocols: ['h2'] },
      () => {
        resolve(socket.getPeerCertificate().fingerprint256);
        socket.destroy();
      },
    );
    socket.once('error', reject);
  });
}

function fingerprintOf(certFile: string): string {
  return new X509Certificate(readFileSync(certFile)).fingerprint256;
}

test('gRPC TLS: handshake with a test CA, and a rotated certificate is served without a restart', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const first = pki.issue('server', ['localhost']);
  const second = pki.issue('server-next', ['localhost']);
  const reloads: string[] = [];
  const tls = new ReloadingServerCredentials(
    { certFile: first.cert, keyFile: first.key },
    {
      pollIntervalMs: 100,
      observer: { reloaded: () => reloads.push('ok'), failed: (e) => reloads.push(e.message) },
    },
  );
  const { server, port } = await startServer(tls);
  const ca = readFileSync(pki.path('ca.crt'));
  const client = echoClient(`localhost:${port}`, credentials.createSsl(ca));
  try {
    assert.equal(await echo(client, 'hello'), 'hello');
    const firstFingerprint = await presentedFingerprint(port, ca);
    assert.equal(firstFingerprint, fingerprintOf(first.cert));

    // Rotate the way deployments do: rename new files over the old ones.
    renameSync(second.key, first.key);
    renameSync(second.cert, first.cert);
    const deadline = Date.now() + 10_000;
    let presented = firstFingerprint;
    while (presented === firstFingerprint && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      presented = await presentedFingerprint(port, ca);
    }
    assert.equal(presented, fingerprintOf(first.cert), 'the rotated certificate is presented');
    assert.notEqual(presented, firstFingerprint);
    assert.ok(reloads.includes('ok'));
    const freshClient = echoClient(`localhost:${port}`, credentials.createSsl(ca));
    assert.equal(await echo(freshClient, 'after rotation'), 'after rotation');
    freshClient.close();
  } finally {
    client.close();
    tls.close();
    server.forceShutdown();
  }
});

test('gRPC mTLS rejects a client without a certificate and a client with the wrong SAN', async (t) => {
  const pki = new TestPki();
  t.after(() => pki.cleanup());
  const serverPair = pki.issue('server', ['localhost']);
  const good = pki.issue('client-good', ['envoy.internal']);
  const wrong = pki.issue('client-wrong', ['intruder.internal']);
  const tls = new ReloadingServerCredentials({
    certFile: serverPair.cert,
    keyFile: serverPair.key,
    clientCaFile: pki.path('ca.crt'),
    clientSan: 'envoy.internal',
  });
  const { server, port } = await startServer(tls);
  const ca = readFileSync(pki.path('ca.crt'));
  const target = `localhost:${port}`;
  const withCert = (pair: { cert: string; key: string }) =>
    credentials.createSsl(ca, readFileSync(pair.key), readFileSync(pair.cert));
  const clients = [
    echoClient(target, withCert(good)),
    echoClient(target, credentials.createSsl(ca)),
    echoClient(target, withCert(wrong)),
  ] as const;
  try {
    assert.equal(await echo(clients[0], 'trusted'), 'trusted');
    await assert.rejects(echo(clients[1], 'anonymous', 2000), (error: { code: number }) => {
      assert.equal(error.code, status.UNAVAILABLE);
      return true;
    });
    await assert.rejects(echo(clients[2], 'wrong san'), (error: { code: number; details: string }) => {
      assert.equal(error.code, status.UNAUTHENTICATED);
      assert.match(error.details, /subject alternative name 'envoy.internal'/);
      return true;
    });
  } finally {
    for (const client of clients) client.close();
    tls.close();
    server.forceShutdown();
  }
});

test('unreadable TLS files are a clear settings error', () => {
  assert.throws(
    () =>
      new ReloadingServerCredentials({ certFile: '/nonexistent/cert.pem', keyFile: '/nonexistent/key.pem' }),
    /GRPC_SERVER_TLS_CERT: cannot load the gRPC server certificate '\/nonexistent\/cert.pem'/,
  );
});
