import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { startTestServer, type TestServer } from './helpers/server.js';

// An early answer (the body is over /json's 4 MiB, the headers over Node's 16 KiB) goes to a client
// that is still sending. The server closes its sending side and reads on, so the client's unread
// answer is not discarded by a reset; the reading is bounded in time and bytes.

const CONFIG =
  'domain: api\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1}\n';
const MIB = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

/** A chunked /json body of `bytes` sent as fast as the socket takes it, the answer read meanwhile. */
function rawUpload(port: number, bytes: number): Promise<{ answer: string; sent: number }> {
  return new Promise((resolve, reject) => {
    // Half open allowed: the client writes on after the server's end, as a client busy uploading does.
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let sent = 0;
    socket.on('data', (data) => {
      answer += data.toString('latin1');
    });
    const pump = () => {
      while (sent < bytes) {
        sent += CHUNK.length;
        const last = sent >= bytes;
        const frame = Buffer.concat([
          Buffer.from(`${CHUNK.length.toString(16)}\r\n`),
          CHUNK,
          Buffer.from(last ? '\r\n0\r\n\r\n' : '\r\n'),
        ]);
        if (!socket.write(frame)) return;
      }
      // All sent: the client's side ends, as a client's does once its request is out.
      socket.end();
    };
    socket.on('connect', () => {
      socket.write('POST /json HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n');
      pump();
    });
    socket.on('drain', pump);
    // A reset after the answer was read is not a lost answer; one before it is.
    socket.on('error', (error) => (answer ? undefined : reject(error)));
    socket.on('close', () => resolve({ answer, sent }));
  });
}

/** A body that never ends, its answer read meanwhile; resolves when the server closes the socket. */
function endlessWriter(
  port: number,
  head: string,
  pace: { chunk: Buffer; everyMs: number } | undefined,
): Promise<{ answer: string; sent: number; closedAfterMs: number }> {
  return new Promise((resolve) => {
    const started = Date.now();
    const socket: Socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    let answer = '';
    let sent = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('data', (data) => {
      answer += data.toString('latin1');
    });
    const pump = () => {
      while (socket.writable) {
        sent += CHUNK.length;
        if (!socket.write(CHUNK)) return;
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      if (pace) {
        timer = setInterval(() => {
          sent += pace.chunk.length;
          socket.write(pace.chunk);
        }, pace.everyMs);
      } else {
        pump();
      }
    });
    socket.on('drain', pump);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ answer, sent, closedAfterMs: Date.now() - started });
    });
  });
}

/** A body of `totalBytes` as a fetch stream. */
function streamedBody(totalBytes: number): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= totalBytes) controller.close();
      else {
        sent += CHUNK.length;
        controller.enqueue(new Uint8Array(CHUNK));
      }
    },
  });
}

describe('lingering close on the HTTP port', () => {
  let t: TestServer;
  let port: number;
  before(async () => {
    t = await startTestServer({ 'api.yaml': CONFIG }, { HTTP_LINGERING_MAX_BYTES: String(16 * MIB) });
    port = t.server.ports.http;
  });
  after(() => t.stop());

  test('a raw socket sending 8 MiB as fast as it can reads its 400, 20 times in a row', async () => {
    for (let run = 0; run < 20; run++) {
      const { answer } = await rawUpload(port, 8 * MIB);
      assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/, `run ${run}`);
      assert.match(answer, /\r\nconnection: close\r\n/i, `run ${run}`);
    }
  });

  test('undici fetch streaming 8 MiB as fast as it can reads its 400, 20 times in a row', async () => {
    for (let run = 0; run < 20; run++) {
      const response = await fetch(`http://127.0.0.1:${port}/json`, {
        method: 'POST',
        body: streamedBody(8 * MIB),
        duplex: 'half',
      } as RequestInit);
      assert.equal(response.status, 400, `run ${run}`);
      assert.equal(await response.text(), 'Bad Request\n');
    }
  });

  test('a declared body over the limit is answered before any of it is read', async () => {
    const { answer, sent } = await endlessWriter(
      port,
      `POST /json HTTP/1.1\r\nhost: x\r\ncontent-length: ${1024 * MIB}\r\n\r\n`,
      undefined,
    );
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    // Closed by the byte bound: 16 MiB discarded, plus what the two kernels' buffers hold.
    assert.ok(sent < 64 * MIB, `${sent} bytes sent before the close`);
  });

  test('a body that never ends is answered, then closed once 16 MiB more were discarded', async () => {
    const { answer, sent } = await endlessWriter(
      port,
      // One chunk of 1 GiB (0x40000000) that never ends.
      'POST /json HTTP/1.1\r\nhost: x\r\ntransfer-encoding: chunked\r\n\r\n40000000\r\n',
      undefined,
    );
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.ok(sent >= 4 * MIB && sent < 64 * MIB, `${sent} bytes sent before the close`);
  });

  test('headers that never end get 431, then the socket is closed by the byte bound', async () => {
    const { answer, sent } = await endlessWriter(port, 'GET /healthcheck HTTP/1.1\r\nx-long: ', undefined);
    assert.match(answer, /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    assert.ok(sent < 64 * MIB, `${sent} bytes sent before the close`);
  });
});

describe('lingering close: the time bound', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ 'api.yaml': CONFIG }, { HTTP_LINGERING_TIME: '1s' });
  });
  after(() => t.stop());

  test('a client that keeps sending slowly after its answer is closed once the time bound passes', async () => {
    const started = Date.now();
    const { answer, closedAfterMs } = await endlessWriter(
      t.server.ports.http,
      `POST /json HTTP/1.1\r\nhost: x\r\ncontent-length: ${1024 * MIB}\r\n\r\n`,
      { chunk: Buffer.alloc(1024, 0x61), everyMs: 20 },
    );
    assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
    // 1 s of lingering; the upper end leaves room for a loaded machine, far below the default 30 s.
    assert.ok(closedAfterMs >= 900 && closedAfterMs < 10_000, `closed after ${closedAfterMs} ms`);
    assert.ok(Date.now() - started < 10_000);
  });
});
