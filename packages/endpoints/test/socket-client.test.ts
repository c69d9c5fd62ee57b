import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { emitClient } from '../src/client/emit.js';
import { appWith } from './support/controllers.js';
import { serveApp } from './support/sockets.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
mkdirSync(join(packageRoot, '.tmp'), { recursive: true });
// Inside the package, so the emitted module resolves openapi-fetch from the workspace's node_modules.
const dir = mkdtempSync(join(packageRoot, '.tmp', 'socket-client-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A TCP relay to the app whose connections the test can cut, as a network failure would. */
async function relay(port: number) {
  const sockets = new Set<Socket>();
  const server = createServer((inbound) => {
    const outbound = connect(port, '127.0.0.1');
    for (const socket of [inbound, outbound]) {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      socket.on('error', () => {});
    }
    inbound.pipe(outbound).pipe(inbound);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return {
    port: (server.address() as AddressInfo).port,
    cut: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: () => server.close(),
  };
}

interface Emitted {
  connectSocket(
    url: string,
    options: object,
  ): {
    send: Record<string, (input?: object) => Promise<unknown>>;
    ready: Promise<void>;
    close(): void;
  };
  SocketError: new (...args: never[]) => Error & { code: number };
}

test('the emitted WebSocket client reconnects after a dropped connection, and stops when told or out of attempts', async () => {
  const app = await appWith({
    'index.ts': `export class Chat extends Controller {
      CONNECT() {}
      GET() { return 'pong'; }
    }`,
  });
  writeFileSync(join(dir, 'client.ts'), await emitClient(app.openapi()));
  const client = (await import(join(dir, 'client.ts'))) as Emitted;
  const { server, url } = await serveApp(app);
  const network = await relay(Number(new URL(url).port));
  after(() => {
    network.close();
    server.close();
  });
  const address = `ws://127.0.0.1:${network.port}/chat`;

  const closes: [number, boolean][] = [];
  let noticed = () => {};
  const socket = client.connectSocket(address, {
    WebSocket,
    reconnect: { attempts: 3, delayMs: () => 10 },
    onClose: (code: number, reconnecting: boolean) => {
      closes.push([code, reconnecting]);
      noticed();
    },
  });
  const closed = () =>
    new Promise<void>((resolve) => {
      noticed = resolve;
    });
  await socket.ready;
  assert.equal(await socket.send.getChat?.(), 'pong');
  for (let drop = 0; drop < 2; drop += 1) {
    const down = closed();
    network.cut();
    await down;
    // Sent while the connection is down: it waits for the next one.
    assert.equal(await socket.send.getChat?.(), 'pong');
  }
  assert.deepEqual(closes, [
    [1006, true],
    [1006, true],
  ]);
  socket.close();
  await assert.rejects(socket.send.getChat?.() as Promise<unknown>, client.SocketError);

  const once = client.connectSocket(address, {
    WebSocket,
    reconnect: { attempts: 0 },
    onClose: () => noticed(),
  });
  await once.ready;
  const down = closed();
  network.cut();
  await down;
  await assert.rejects(once.send.getChat?.() as Promise<unknown>, (error: Error & { code: number }) => {
    assert.ok(error instanceof client.SocketError);
    assert.match(error.message, /the connection closed \(1006\)/);
    return true;
  });

  const refused = client.connectSocket(`ws://127.0.0.1:${network.port}/nowhere`, { WebSocket });
  await assert.rejects(refused.ready, (error: Error & { code: number }) => error.code === 404);
});
