import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { serve as honoServe } from '@hono/node-server';
import express from 'express';
import { serve as srvxServe } from 'srvx';
import { loadServerEntry } from 'srvx/loader';
import { type App, createApp } from '../src/index.js';
import { writeControllers } from './support/controllers.js';

const CONTROLLERS = {
  'index.ts': `
    export class Default extends Controller {
      GET(...args) { return args.length ? args : 'Default handler'; }
      POST({ name }) { return 'hello ' + name; }
    }
    export class Foo extends Controller { GET() { return 'Foo handler'; } }
    export class Echo extends Controller { ANY({ ...kw } = {}, ...args) { return { method: this.request.method, args, kw }; } }
    export class Only extends Controller { GET() { return 'only'; } }
    export class Boom extends Controller { GET() { throw new Error('bah'); } }
    export class Gone extends Controller { GET() { throw new Redirect('/foo'); } }
    export class Stream extends Controller { async *GET() { yield new TextEncoder().encode('chunk-1 '); yield new TextEncoder().encode('chunk-2'); } }
    export class Who extends Controller { GET() { return this.request.ipAddress; } }
    export class EchoUrl extends Controller { GET() { return this.request.url.href; } }
    export class Cors extends Controller { static cors = true; GET() { return 'cors'; } }
    export class Bad extends Controller {
      GET(kind) {
        if (kind === 'code') this.response.code = 99;
        else if (kind === 'header') this.response.headers.set('x-odd', 'a\\x01b');
        else if (kind === 'response') return new Response('x', { headers: { 'x-odd': 'a\\x01b' } });
        else this.response.mediaType = 'text/plain\\nX-Injected: 1';
        return 'x';
      }
    }`,
  'users.ts': `export class Default extends Controller { GET(userId, collection, postId) { return { userId, collection, postId }; } }`,
};

interface Row {
  method: string;
  target: string;
  headers?: Record<string, string>;
  body?: string;
  status: number;
  json?: unknown;
  text?: string;
  header?: [string, string | null];
}

/** A subset of the reference tables, replayed against each real server. */
const ROWS: Row[] = [
  { method: 'GET', target: '/', status: 200, json: 'Default handler' },
  { method: 'GET', target: '/foo', status: 200, json: 'Foo handler' },
  {
    method: 'POST',
    target: '/',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'name=Awesome+you',
    status: 200,
    json: 'hello Awesome you',
  },
  {
    method: 'GET',
    target: '/users/42/posts/7',
    status: 200,
    json: { userId: '42', collection: 'posts', postId: '7' },
  },
  {
    method: 'POST',
    target: '/only',
    status: 501,
    json: 'POST /only not implemented',
    header: ['allow', 'GET'],
  },
  { method: 'DELETE', target: '/only/bar', status: 404, json: 'DELETE /only/bar not found' },
  { method: 'GET', target: '/foo/extra', status: 404 },
  { method: 'GET', target: '/?x=1', status: 400 },
  {
    method: 'PUT',
    target: '/echo/a?q=1',
    headers: { 'content-type': 'application/json' },
    body: '{"q":2,"r":3}',
    status: 200,
    json: { method: 'PUT', args: ['a'], kw: { q: 2, r: 3 } },
  },
  {
    method: 'POST',
    target: '/echo',
    headers: { 'content-type': 'application/json' },
    body: '{nope',
    status: 400,
  },
  {
    method: 'POST',
    target: '/echo',
    headers: { 'content-type': 'multipart/form-data; boundary=zzz' },
    body: '--zzz\r\nbroken',
    status: 400,
  },
  { method: 'GET', target: '/boom', status: 500, json: 'bah' },
  {
    method: 'GET',
    target: '/bad/code',
    status: 500,
    json: 'response.code must be a whole number from 200 to 599, got 99',
  },
  { method: 'GET', target: '/bad/type', status: 500, header: ['x-injected', null] },
  // A value a web Headers takes but Node will not write: still a 500 on every host, never a hang.
  { method: 'GET', target: '/bad/header', status: 500, header: ['x-odd', null] },
  // The same value in a Response the handler built: a 500 too, and the server lives on.
  { method: 'GET', target: '/bad/response', status: 500, header: ['x-odd', null] },
  { method: 'GET', target: '/gone', status: 302, header: ['location', '/foo'] },
  { method: 'GET', target: '/stream', status: 200, text: 'chunk-1 chunk-2' },
  {
    method: 'OPTIONS',
    target: '/cors',
    headers: {
      origin: 'https://a.example',
      'access-control-request-method': 'GET',
      'access-control-request-headers': 'x',
    },
    status: 204,
    header: ['access-control-allow-origin', 'https://a.example'],
  },
];

async function listen(server: Server): Promise<string> {
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** A request through node:http's client, which sends the path exactly as given. */
function rawRequest(base: string, path: string, headers: Record<string, string> = {}, body?: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const url = new URL(base);
    const method = 'GET';
    const req = httpRequest({ host: url.hostname, port: url.port, path, method, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function replay(name: string, base: () => string) {
  for (const row of ROWS) {
    test(`${name}: ${row.method} ${row.target} → ${row.status}`, async () => {
      const response = await fetch(`${base()}${row.target}`, {
        method: row.method,
        headers: row.headers,
        body: row.body,
        redirect: 'manual',
      });
      assert.equal(response.status, row.status);
      const text = await response.text();
      if (row.json !== undefined) assert.deepEqual(JSON.parse(text), row.json);
      if (row.text !== undefined) assert.equal(text, row.text);
      if (row.header) assert.equal(response.headers.get(row.header[0]), row.header[1]);
    });
  }
}

let app: App;
let prefix: string;
before(async () => {
  prefix = writeControllers(CONTROLLERS);
  app = await createApp({ controllerPrefix: prefix, log: () => {} });
});

describe('node:http with app.listener', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = createServer(app.listener);
    base = await listen(server);
  });
  after(() => close(server));
  replay('node:http', () => base);

  test('node:http: a raw ../ path never leaves the prefix', async () => {
    const reply = await rawRequest(base, '/../../etc/passwd');
    assert.equal(reply.status, 200);
    assert.deepEqual(JSON.parse(reply.body), ['..', '..', 'etc', 'passwd']);
  });

  test('node:http: a GET with a JSON body is parsed, and the body limit answers 413', async () => {
    const small = await createApp({ controllerPrefix: prefix, bodyLimit: 8 });
    const smallServer = createServer(small.listener);
    const smallBase = await listen(smallServer);
    try {
      const tooBig = await fetch(`${smallBase}/echo`, { method: 'PUT', body: 'x'.repeat(100) });
      assert.equal(tooBig.status, 413);
    } finally {
      await close(smallServer);
    }
    // Node's client sends a GET body without framing unless told its length.
    const headers = { 'content-type': 'application/json', 'content-length': '9' };
    const parsed = (await rawRequest(base, '/echo', headers, '{"k":"v"}')).body;
    assert.deepEqual(JSON.parse(parsed), { method: 'GET', args: [], kw: { k: 'v' } });
  });

  test('node:http: an unusable Host header still gives the handler a URL', async () => {
    const reply = await rawRequest(base, '/echo-url', { host: 'bad host' });
    assert.equal(reply.status, 200);
    assert.equal(JSON.parse(reply.body), 'http://localhost/echo-url');
  });

  test('node:http: the client address comes from the socket', async () => {
    assert.equal(await (await fetch(`${base}/who`)).json(), '127.0.0.1');
  });
});

describe('srvx with app.fetch', () => {
  let server: ReturnType<typeof srvxServe>;
  let base = '';
  before(async () => {
    server = srvxServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', silent: true });
    await server.ready();
    base = (server.url as string).replace(/\/$/, '');
  });
  after(() => server.close(true));
  replay('srvx', () => base);

  test('srvx: the client address comes from request.ip', async () => {
    assert.equal(await (await fetch(`${base}/who`)).json(), '127.0.0.1');
  });
});

describe('@hono/node-server with app.fetch', () => {
  let server: Server;
  let base = '';
  before(async () => {
    server = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => close(server));
  replay('@hono/node-server', () => base);

  test('@hono/node-server: the client address comes from the Node request in its bindings', async () => {
    assert.equal(await (await fetch(`${base}/who`)).json(), '127.0.0.1');
  });

  test('@hono/node-server: the body is read from the Node request, within the body limit', async () => {
    const small = await createApp({ controllerPrefix: prefix, bodyLimit: 8, log: () => {} });
    const smallServer = honoServe({ fetch: small.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
    await once(smallServer, 'listening');
    const smallBase = `http://127.0.0.1:${(smallServer.address() as AddressInfo).port}`;
    try {
      const tooBig = await fetch(`${smallBase}/echo`, { method: 'PUT', body: 'x'.repeat(100) });
      assert.equal(tooBig.status, 413);
      assert.equal(tooBig.headers.get('connection'), 'close');
      const fits = await fetch(`${smallBase}/echo`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: '{"k":1}',
      });
      assert.deepEqual(await fits.json(), { method: 'PUT', args: [], kw: { k: 1 } });
    } finally {
      await close(smallServer);
    }
  });
});

describe('Express', () => {
  test('Express mounts app.handle under a path', async () => {
    const site = express();
    site.get('/health', (_req, res) => {
      res.send('ok');
    });
    site.use('/api', app.handle);
    const server = createServer(site);
    const base = await listen(server);
    try {
      assert.equal(await (await fetch(`${base}/health`)).text(), 'ok');
      assert.equal(await (await fetch(`${base}/api/foo`)).json(), 'Foo handler');
      assert.equal((await fetch(`${base}/api/only`, { method: 'POST' })).status, 501);
    } finally {
      await close(server);
    }
  });
});

describe('factory mode', () => {
  test('the factory module builds the app from APP_PREFIX; srvx loads it as an entry, node:http in one line', async () => {
    process.env.APP_PREFIX = prefix;
    const factory = join(fileURLToPath(new URL('..', import.meta.url)), 'src', 'factory.ts');
    const entry = await loadServerEntry({ entry: factory, interceptHttpListen: false });
    assert.ok(entry.fetch);
    const response = await entry.fetch(new Request('http://127.0.0.1/foo'));
    assert.equal(await response.json(), 'Foo handler');

    const server = createServer((await import(factory)).default.listener);
    const base = await listen(server);
    try {
      assert.equal(await (await fetch(`${base}/`)).json(), 'Default handler');
    } finally {
      await close(server);
    }
  });
});
