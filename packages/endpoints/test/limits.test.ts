import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, connect, type Socket } from 'node:net';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import express from 'express';
import { serve as srvxServe } from 'srvx';
import type { App, AppOptions } from '../src/index.js';
import { appWith, call } from './support/controllers.js';

const CONTROLLERS = {
  'index.ts': `
    export class Echo extends Controller {
      POST({ ...kw } = {}, ...args) { return { args: args.length, kw: Object.keys(kw) }; }
    }`,
};

/** How far past the limit a server may read before it stops: a few of Node's 64 KiB socket reads. */
const MARGIN = 512 * 1024;

interface Served {
  port: number;
  /** Bytes each server-side socket read, recorded when it closed. */
  bytesRead: number[];
  close(): Promise<void>;
}

/** `app.listener` on node:http, recording how much each connection read. */
async function nodeServer(app: App): Promise<Served> {
  const server: Server = createServer(app.listener);
  const bytesRead: number[] = [];
  server.on('connection', (socket: Socket) => socket.on('close', () => bytesRead.push(socket.bytesRead)));
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    bytesRead,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** `app.fetch` under srvx (a Node-based host), recording how much each connection read. */
async function fetchServer(app: App): Promise<Served> {
  const server = srvxServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', silent: true });
  await server.ready();
  const node = server.node?.server as Server;
  const bytesRead: number[] = [];
  node.on('connection', (socket: Socket) => socket.on('close', () => bytesRead.push(socket.bytesRead)));
  return {
    port: Number(new URL(server.url as string).port),
    bytesRead,
    close: () => server.close(true),
  };
}

interface RawExchange {
  /** Everything the server sent before it closed the connection. */
  reply: string;
  /** Body bytes the client managed to hand to its socket. */
  sent: number;
}

/**
 * Sends a request head, then body bytes from `next` for as long as the server lets it, and collects
 * the reply until the server closes the connection. A raw socket, so nothing buffers on our side.
 */
async function rawUpload(port: number, head: string, next: () => Buffer | null): Promise<RawExchange> {
  const socket = connect(port, '127.0.0.1');
  await once(socket, 'connect');
  let reply = '';
  let closed = false;
  socket.setEncoding('latin1');
  socket.on('data', (chunk: string) => {
    reply += chunk;
  });
  socket.on('error', () => {});
  const ended = new Promise<void>((resolve) =>
    socket.once('close', () => {
      closed = true;
      resolve();
    }),
  );
  socket.write(head);
  let sent = 0;
  for (let chunk = next(); chunk !== null && !closed; chunk = next()) {
    sent += chunk.byteLength;
    // A write the server refuses (EPIPE, reset) ends the upload; the close event follows it.
    if (!socket.write(chunk)) await Promise.race([once(socket, 'drain').catch(() => {}), ended]);
    if (chunk.byteLength === 0) await delay(100);
  }
  await ended;
  return { reply, sent };
}

function statusOf(reply: string): number {
  return Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1]);
}

function chunked(size: number, total: number): () => Buffer | null {
  let left = total;
  const piece = Buffer.concat([
    Buffer.from(`${size.toString(16)}\r\n`),
    Buffer.alloc(size, 'x'),
    Buffer.from('\r\n'),
  ]);
  return () => {
    if (left <= 0) return null;
    left -= size;
    return piece;
  };
}

const LIMIT = 64 * 1024;
const HUGE = 256 * 1024 * 1024;

for (const [name, start] of [
  ['node:http', nodeServer],
  ['fetch (srvx)', fetchServer],
] as const) {
  describe(`body limits through ${name}`, () => {
    const options: AppOptions = { bodyLimit: LIMIT, requestTimeout: 1000 };

    test('a chunked body over the limit → 413 with Connection: close, and reading stops', async () => {
      const served = await start(await appWith(CONTROLLERS, options));
      try {
        const head =
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nTransfer-Encoding: chunked\r\n\r\n';
        const { reply, sent } = await rawUpload(served.port, head, chunked(16 * 1024, HUGE));
        assert.equal(statusOf(reply), 413, reply.slice(0, 200));
        assert.match(reply, /\r\nconnection: close\r\n/i);
        assert.match(reply, /larger than the limit of 65536 bytes/);
        assert.ok(sent < HUGE, 'the server let the whole body through');
        await delay(50);
        const read = Math.max(...served.bytesRead);
        assert.ok(read < LIMIT + MARGIN, `the server read ${read} bytes for a limit of ${LIMIT}`);
      } finally {
        await served.close();
      }
    });

    test('a declared Content-Length over the limit → 413 at once, without reading the body', async () => {
      const served = await start(await appWith(CONTROLLERS, options));
      try {
        const head = `POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/octet-stream\r\nContent-Length: ${1024 ** 3}\r\n\r\n`;
        let left = HUGE;
        const piece = Buffer.alloc(64 * 1024, 'y');
        const { reply } = await rawUpload(served.port, head, () => {
          left -= piece.byteLength;
          return left > 0 ? piece : null;
        });
        assert.equal(statusOf(reply), 413, reply.slice(0, 200));
        assert.match(reply, /\r\nconnection: close\r\n/i);
        await delay(50);
        const read = Math.max(...served.bytesRead);
        assert.ok(read < LIMIT + MARGIN, `the server read ${read} bytes of a body declared as 1 GiB`);
      } finally {
        await served.close();
      }
    });

    test('a trickled body is cut at the request timeout: 503, Connection: close, the socket closed', async () => {
      const served = await start(await appWith(CONTROLLERS, options));
      try {
        const head =
          'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n';
        // One byte, then an empty write (a 100 ms pause), for up to 60 s: far past the 1 s timeout.
        let ticks = 0;
        const { reply } = await rawUpload(served.port, head, () => {
          ticks += 1;
          if (ticks > 1200) return null;
          return ticks % 2 === 1 ? Buffer.from('1\r\nx\r\n') : Buffer.alloc(0);
        });
        assert.equal(statusOf(reply), 503, reply.slice(0, 200));
        assert.match(reply, /\r\nconnection: close\r\n/i);
        assert.match(reply, /did not finish within 1000 ms/);
        assert.ok(ticks < 1200, 'the connection stayed open after the 503');
      } finally {
        await served.close();
      }
    });
  });
}

describe('parsed bodies stay within their limits', async () => {
  const logged: string[] = [];
  const app = await appWith(
    {
      'index.ts': `
      export class Echo extends Controller {
        POST({ ...kw } = {}, ...args) { return { args: args.length, kw: Object.keys(kw).length }; }
      }`,
    },
    { multipartParts: 5, multipartFieldLimit: 16, log: (line) => logged.push(line) },
  );

  test('a JSON array of 500,000 items → 400 naming the positional limit, never a stack overflow', async () => {
    const body = JSON.stringify(Array.from({ length: 500_000 }, (_, i) => i % 10));
    assert.ok(body.length < 1024 * 1024, 'the body is under the default 1 MiB limit');
    const reply = await call(app, '/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    assert.equal(reply.status, 400);
    assert.equal(
      reply.json,
      'the JSON body is an array of 500000 items; at most 1024 can be positional arguments (send an object instead)',
    );
    assert.deepEqual(logged, []);
  });

  test('a JSON array at the positional limit is bound', async () => {
    const reply = await call(app, '/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 1024 }, () => 1)),
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { args: 1024, kw: 0 });
  });

  test('a JSON object with 50,000 keys is keywords, not a stack overflow', async () => {
    const fields = Object.fromEntries(Array.from({ length: 50_000 }, (_, i) => [`k${i}`, i]));
    const reply = await call(app, '/echo', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(fields),
    });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, { args: 0, kw: 50_000 });
  });

  test('multipart: more parts than multipartParts → 400', async () => {
    const form = new FormData();
    for (let i = 0; i < 6; i += 1) form.append(`f${i}`, 'v');
    const reply = await call(app, '/echo', { method: 'POST', body: form });
    assert.equal(reply.status, 400);
    assert.equal(reply.json, 'the multipart body has more than 5 parts');
  });

  test('multipart: a field larger than multipartFieldLimit → 413; a file may be larger', async () => {
    const form = new FormData();
    form.append('note', 'x'.repeat(17));
    const reply = await call(app, '/echo', { method: 'POST', body: form });
    assert.equal(reply.status, 413);
    assert.equal(reply.json, "multipart field 'note' is larger than the limit of 16 bytes");
    const withFile = new FormData();
    withFile.append('file', new File(['y'.repeat(1000)], 'big.txt'));
    const filed = await call(app, '/echo', { method: 'POST', body: withFile });
    assert.equal(filed.status, 200, filed.text);
  });
});

describe('mounted behind express.json()', () => {
  test('a body the parser already read → 500 with the advice to mount endpoints first', async () => {
    const logged: string[] = [];
    const app = await appWith(CONTROLLERS, { log: (line) => logged.push(line) });
    const server = express().use(express.json()).use(app.handle).listen(0, '127.0.0.1');
    await once(server, 'listening');
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"a":1}',
      });
      assert.equal(response.status, 500);
      assert.equal(
        await response.json(),
        'the request body was already read by another middleware; mount endpoints before body parsers',
      );
      assert.equal(logged.length, 1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
