// Hostile HTTP/2 on the gRPC port, on the transport of the run (GRPC_TRANSPORT; CI runs both):
// both sit on Node's nghttp2 session limits, and both must hold the same way.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  CALL_HEADERS,
  END_HEADERS,
  END_STREAM,
  FrameType,
  flood,
  h2Frame,
  headerBlock,
  rawConnection,
} from './helpers/h2-frames.js';
import { request, startTestServer, type TestServer } from './helpers/server.js';

const CONFIG = {
  'd.yaml': 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 5 }\n',
};
/** How long a flooded connection may stay open before the test counts it as held. */
const CLOSE_WITHIN_MS = 5000;

function within<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  return Promise.race([
    promise,
    new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), ms)),
  ]);
}

describe('HTTP/2 floods on the gRPC port', () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer(CONFIG);
  });
  after(() => server.stop());
  const stillServes = async () =>
    assert.equal((await server.client.shouldRateLimit(request('d', ['k=after-flood']))).overallCode, 'OK');
  const block = headerBlock(CALL_HEADERS);

  test('rapid reset (HEADERS then RST_STREAM, over and over): a GOAWAY, and other clients are served', async () => {
    const connection = await rawConnection(server.server.ports.grpc, true);
    await flood(
      connection.socket,
      (function* () {
        for (let i = 0; i < 50_000; i++) {
          yield h2Frame(FrameType.HEADERS, END_HEADERS, 2 * i + 1, block);
          yield h2Frame(FrameType.RST_STREAM, 0, 2 * i + 1, Buffer.from([0, 0, 0, 8]));
        }
      })(),
    );
    assert.notEqual(connection.goaway(), undefined, 'the server sent a GOAWAY');
    connection.socket.destroy();
    await stillServes();
  });

  test('a SETTINGS flood from a client that reads: a GOAWAY and the close', async () => {
    const connection = await rawConnection(server.server.ports.grpc, true);
    await flood(
      connection.socket,
      (function* () {
        for (let i = 0; i < 200_000; i++) yield h2Frame(FrameType.SETTINGS, 0, 0);
      })(),
    );
    assert.notEqual(await within(connection.closed, CLOSE_WITHIN_MS), 'timeout', 'the connection is closed');
    assert.notEqual(connection.goaway(), undefined);
    await stillServes();
  });

  test('SETTINGS and PING floods from clients that never read: the server does not queue their ACKs without bound', async () => {
    const before = process.memoryUsage().rss;
    for (const type of [FrameType.SETTINGS, FrameType.PING]) {
      const connection = await rawConnection(server.server.ports.grpc, false);
      const payload = type === FrameType.PING ? Buffer.alloc(8) : Buffer.alloc(0);
      await flood(
        connection.socket,
        (function* () {
          for (let i = 0; i < 200_000; i++) yield h2Frame(type, 0, 0, payload);
        })(),
      );
      connection.socket.destroy();
    }
    // 200,000 ACKs each, unbounded, would be 3.6 MB of frames plus nghttp2's per-frame bookkeeping.
    const grown = (process.memoryUsage().rss - before) / 1024 / 1024;
    assert.ok(grown < 64, `the process grew by ${grown.toFixed(1)} MiB`);
    await stillServes();
  });

  test('a CONTINUATION flood (a header block that never ends): a GOAWAY and the close', async () => {
    const connection = await rawConnection(server.server.ports.grpc, true);
    await flood(
      connection.socket,
      (function* () {
        yield h2Frame(FrameType.HEADERS, END_STREAM, 1, block);
        for (let i = 0; i < 200_000; i++) {
          yield h2Frame(FrameType.CONTINUATION, 0, 1, headerBlock({ [`x-h${i % 50}`]: 'y'.repeat(100) }));
        }
      })(),
    );
    assert.notEqual(await within(connection.closed, CLOSE_WITHIN_MS), 'timeout', 'the connection is closed');
    assert.notEqual(connection.goaway(), undefined);
    await stillServes();
  });
});
