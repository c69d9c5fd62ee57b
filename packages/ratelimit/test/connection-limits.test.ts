import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { RateLimitClient } from '../src/client/client.js';
import { type ChildServer, startChildServer } from './helpers/child-server.js';
import { eventually, request } from './helpers/server.js';

const CONFIG = {
  'd.yaml': 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 5 }\n',
};

/** Connects, writes `text`, and never reads: the socket is paused, so it never sees the server's FIN either. */
async function silentClient(port: number, text: string): Promise<Socket> {
  const socket = connect({ port, host: '127.0.0.1' });
  socket.pause();
  socket.on('error', () => {});
  await new Promise((resolve) => socket.once('connect', resolve));
  if (text) socket.write(text);
  return socket;
}

/**
 * Writes `text` and resolves to what the server sent before it closed the connection; rejects
 * when the server still holds it after 10 s (the bounds under test are 1–2 s).
 */
function untilClosed(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect({ port, host: '127.0.0.1' }, () => socket.write(text));
    let received = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`the server still held the connection after 10 s, having sent ${JSON.stringify(received)}`),
      );
    }, 10_000);
    socket.on('data', (chunk) => {
      received += chunk;
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(received);
    });
  });
}

describe('connections that hold resources', () => {
  let server: ChildServer;
  before(async () => {
    server = await startChildServer(CONFIG, {
      HTTP_HEADERS_TIMEOUT: '1s',
      HTTP_REQUEST_TIMEOUT: '2s',
      GRPC_HANDSHAKE_TIMEOUT: '1s',
    });
  });
  after(() => server.stop());

  test('garbage from clients that never read gets a 400 and the server lets go of the socket', async (t) => {
    const baseline = await server.openFds();
    const clients = await Promise.all(
      Array.from({ length: 40 }, () => silentClient(server.ports.http, 'GARBAGE\r\n\r\n')),
    );
    try {
      // Connections are accepted in order: once a later one is answered, the server has all 40.
      assert.equal((await fetch(`http://127.0.0.1:${server.ports.http}/healthcheck`)).status, 200);
      t.diagnostic(`descriptors: ${baseline} before, ${await server.openFds()} after the 40 clients`);
      await eventually(async () => (await server.openFds()) <= baseline + 5, 10_000).catch(async () => {
        assert.fail(`the server holds ${(await server.openFds()) - baseline} more descriptors than before`);
      });
    } finally {
      for (const client of clients) client.destroy();
    }
  });

  test('the debug server answers GET // and other unparsable URLs with 400', async () => {
    for (const target of ['//', '//x:99999/stats']) {
      const answer = await untilClosed(
        server.ports.debug,
        `GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`,
      );
      assert.match(answer, /^HTTP\/1\.1 400 /, target);
    }
    assert.doesNotMatch(server.stderr(), /unexpected/);
  });

  // Each of these waits out a server bound on its own connection: they wait side by side.
  describe('bounds on a connection', { concurrency: true }, () => {
    test('headers that never end get 408 after HTTP_HEADERS_TIMEOUT; the socket is closed', async () => {
      const answer = await untilClosed(server.ports.http, 'POST /json HTTP/1.1\r\nHost: x\r\n');
      assert.match(answer, /^HTTP\/1\.1 408 /);
    });

    test('a body that never ends gets 408 after HTTP_REQUEST_TIMEOUT; the socket is closed', async () => {
      const answer = await untilClosed(
        server.ports.http,
        'POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"domain":',
      );
      assert.match(answer, /^HTTP\/1\.1 408 /);
    });

    test('a gRPC connection that never sends the HTTP/2 preface is closed after GRPC_HANDSHAKE_TIMEOUT', async () => {
      const answer = await untilClosed(server.ports.grpc, '');
      assert.ok(answer.length > 0, 'the server sent its SETTINGS before closing');
      // A client that did its handshake keeps its connection past the bound.
      const client = new RateLimitClient(`127.0.0.1:${server.ports.grpc}`);
      try {
        assert.equal((await client.shouldRateLimit(request('d', ['k=a']))).overallCode, 'OK');
        await new Promise((resolve) => setTimeout(resolve, 1500));
        assert.equal((await client.shouldRateLimit(request('d', ['k=a']))).overallCode, 'OK');
      } finally {
        client.close();
      }
    });
  });
});
