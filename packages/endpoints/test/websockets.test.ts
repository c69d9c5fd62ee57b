import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { Server } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { serve as srvxServe } from 'srvx';
import WebSocket from 'ws';
import type { AppOptions } from '../src/index.js';
import { type CliServer, startCli } from './support/cli.js';
import { appWith, writeControllers } from './support/controllers.js';
import { Client, serveApp } from './support/sockets.js';

const CONTROLLERS = {
  'index.ts': `
    const log = [];
    export class Chat extends Controller {
      CONNECT() { log.push('CONNECT ' + (this.request.header('x-client') ?? '')); }
      DISCONNECT() { log.push('DISCONNECT'); }
      GET(id, { q = '' } = {}) { return { id, q }; }
      POST({ text }) { return 'got ' + text; }
      SOCKET() { return this.request.method; }
      DELETE(kind) { if (kind === 'denied') throw new CallError(401, 'nope'); throw new Error('bah'); }
    }
    export class Log extends Controller { GET() { return log; } }
    export class Guarded extends Controller {
      @authBearer((token) => token === 'good')
      CONNECT() {}
      GET() { return 'inside'; }
    }
    export class Plain extends Controller { GET() { return 'plain'; } }`,
};

async function started(options: AppOptions = {}) {
  return serveApp(await appWith(CONTROLLERS, options));
}

describe('WebSockets on the Node interface (reference §1.14, close code 4000 + status)', () => {
  let server: Server;
  let url = '';
  before(async () => {
    ({ server, url } = await started());
  });
  after(() => server.close());

  test('connecting runs CONNECT and answers {path, code}; frames are dispatched like requests', async () => {
    const client = new Client(`${url}/chat`, { 'x-client': 'one' });
    assert.deepEqual(await client.next(), { path: '/chat', code: 204 });
    assert.deepEqual(await client.send({ path: '/chat/7?q=x', method: 'GET', uuid: 'u1' }), {
      path: '/chat/7?q=x',
      uuid: 'u1',
      code: 200,
      body: { id: '7', q: 'x' },
    });
    assert.deepEqual(await client.send({ path: '/chat', method: 'POST', body: { text: 'hi' }, uuid: 'u2' }), {
      path: '/chat',
      uuid: 'u2',
      code: 200,
      body: 'got hi',
    });
    const any = await client.send({ path: '/chat', method: 'socket', uuid: 'u3' });
    assert.equal(any.body, 'SOCKET');
    client.socket.close();
    await client.closed;
  });

  test('error frames: a failing handler, a CallError, a bad frame, an unknown path', async () => {
    const client = new Client(`${url}/chat`);
    await client.next();
    assert.deepEqual(await client.send({ path: '/chat/boom', method: 'DELETE', uuid: 'e1' }), {
      path: '/chat/boom',
      uuid: 'e1',
      code: 500,
      body: 'bah',
    });
    assert.equal((await client.send({ path: '/chat/denied', method: 'DELETE' })).code, 401);
    const bad = await client.send('not json');
    assert.equal(bad.code, 400);
    assert.match(String(bad.body), /frames must be JSON/);
    assert.equal((await client.send({ method: 'GET' })).code, 400);
    assert.equal((await client.send({ path: '/nowhere/at/all', method: 'GET' })).code, 404);
    client.socket.close();
    await client.closed;
  });

  test('closing runs DISCONNECT', async () => {
    const client = new Client(`${url}/chat`, { 'x-client': 'leaving' });
    await client.next();
    client.socket.close();
    await client.closed;
    let log: string[] = [];
    for (let i = 0; i < 50 && !log.includes('DISCONNECT'); i += 1) {
      await delay(20);
      log = (await (await fetch(`${url.replace('ws', 'http')}/log`)).json()) as string[];
    }
    assert.ok(log.includes('CONNECT leaving'), JSON.stringify(log));
    assert.ok(log.includes('DISCONNECT'), JSON.stringify(log));
  });

  test('a failed CONNECT closes with 4000 + its status: 4401 unauthenticated, 4501 without CONNECT, 4404 no route', async () => {
    assert.equal((await new Client(`${url}/guarded`).closed).code, 4401);
    assert.equal((await new Client(`${url}/plain`).closed).code, 4501);
    assert.equal((await new Client(`${url}/no/such/thing`).closed).code, 4404);
    const allowed = new Client(`${url}/guarded`, { authorization: 'Bearer good' });
    assert.deepEqual(await allowed.next(), { path: '/guarded', code: 204 });
    assert.equal((await allowed.send({ path: '/guarded', method: 'GET' })).body, 'inside');
    allowed.socket.close();
    await allowed.closed;
  });
});

describe('WebSockets beside the fetch interface', () => {
  test('under srvx, the Node server it runs takes app.upgrade', async () => {
    const app = await appWith(CONTROLLERS);
    const host = srvxServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', silent: true });
    await host.ready();
    const nodeServer = host.node?.server as Server;
    nodeServer.on('upgrade', app.upgrade);
    try {
      const client = new Client(`${(host.url as string).replace('http', 'ws').replace(/\/$/, '')}/chat`);
      assert.deepEqual(await client.next(), { path: '/chat', code: 204 });
      assert.equal((await client.send({ path: '/chat/1', method: 'GET' })).code, 200);
      client.socket.close();
      await client.closed;
    } finally {
      await host.close(true);
    }
  });
});

describe('WebSocket limits', () => {
  test('a message over websocketMessageLimit closes the socket with 1009', async () => {
    const { server, url } = await started({ websocketMessageLimit: 100 });
    try {
      const client = new Client(`${url}/chat`);
      await client.next();
      client.socket.send(JSON.stringify({ path: '/chat', method: 'POST', body: { text: 'x'.repeat(200) } }));
      assert.equal((await client.closed).code, 1009);
    } finally {
      server.close();
    }
  });

  test('past websocketConnections open sockets, an upgrade is refused with 503', async () => {
    const { server, url } = await started({ websocketConnections: 1 });
    try {
      const first = new Client(`${url}/chat`);
      await first.next();
      const second = new WebSocket(`${url}/chat`);
      const [, response] = (await once(second, 'unexpected-response')) as [unknown, { statusCode: number }];
      assert.equal(response.statusCode, 503);
      second.on('error', () => {});
      first.socket.close();
      await first.closed;
    } finally {
      server.close();
    }
  });
});

describe('WebSockets through the CLI as a process', () => {
  let cli: CliServer;
  before(async () => {
    cli = await startCli(writeControllers(CONTROLLERS));
  });
  after(() => cli.child.stop());

  test('connect, a dispatched frame, an error frame, a close code', async () => {
    const url = cli.base.replace('http', 'ws');
    const client = new Client(`${url}/chat`);
    assert.deepEqual(await client.next(), { path: '/chat', code: 204 });
    assert.equal((await client.send({ path: '/chat/3', method: 'GET', uuid: 'c' })).code, 200);
    assert.equal((await client.send({ path: '/chat/x', method: 'DELETE' })).code, 500);
    client.socket.close();
    await client.closed;
    assert.equal((await new Client(`${url}/plain`).closed).code, 4501);
  });
});
