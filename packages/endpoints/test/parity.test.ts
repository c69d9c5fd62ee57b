import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, test } from 'node:test';
import { AcceptHeader } from '../src/index.js';
import { appWith, call } from './support/controllers.js';

describe('versioning from the Accept header (reference §1.13)', async () => {
  const app = await appWith({
    'index.ts': `
      export class Versioned extends Controller {
        GET() { return { any: this.request.version(), json: this.request.version('application/json'), html: this.request.version('text/html') }; }
      }`,
  });

  test('request.version() reads the version parameter of the best matching Accept entry', async () => {
    const json = await call(app, '/versioned', { headers: { accept: 'application/json;version=v1' } });
    assert.deepEqual(json.json, { any: 'v1', json: 'v1', html: '' });
    const wildcard = await call(app, '/versioned', { headers: { accept: '*/*;version=v8' } });
    assert.deepEqual(wildcard.json, { any: 'v8', json: 'v8', html: 'v8' });
    const none = await call(app, '/versioned');
    assert.deepEqual(none.json, { any: '', json: '', html: '' });
  });

  test('AcceptHeader orders by q, then specificity (reference AcceptHeaderTest)', () => {
    const header = new AcceptHeader(
      'text/*;q=0.3, text/html;q=0.7, text/html;level=1, text/html;level=2;q=0.4, */*;q=0.5',
    );
    assert.deepEqual(
      header.entries.map((entry) => entry.raw),
      ['text/html;level=1', 'text/html;q=0.7', '*/*;q=0.5', 'text/html;level=2;q=0.4', 'text/*;q=0.3'],
    );
    assert.equal(header.filter('text/html').length, 5);
    assert.equal(header.filter('application/json').length, 1);
    assert.deepEqual(
      header.filter('text/html', { level: '2' }).map((entry) => entry.raw),
      ['text/html;level=2;q=0.4'],
    );
    const quoted = new AcceptHeader('multipart/form-data; boundary="a;b"');
    assert.equal(quoted.entries[0]?.type, 'multipart');
  });
});

describe('smaller parity points (reference §1.7, §1.10, §1.17)', async () => {
  const app = await appWith({
    'index.ts': `
      export class Bytes extends Controller {
        GET() { return { text: new TextEncoder().encode('héllo'), buffer: Buffer.from('buf'), list: [new Uint8Array([104, 105])], empty: new Uint8Array(0) }; }
      }
      export class EmptyBytes extends Controller {
        GET() { return { note: 'long enough for its JSON to be scanned rather than walked', empty: new Uint8Array(0) }; }
      }
      export class Traced extends Controller { static trace = true; GET() { return 'get'; } }
      export class Info extends Controller {
        GET(...rest) {
          const r = this.request;
          return { scheme: r.authScheme, accept: r.acceptMediaType, encoding: r.encoding ?? null, ips: r.ipAddresses,
            controller: r.url.controller().href, more: r.url.controller('x', { q: '1' }).href, module: r.url.module().href };
        }
      }`,
    'foomod.ts': `
      export class Bar extends Controller { GET(...rest) { return { controller: this.request.url.controller().href, module: this.request.url.module().href }; } }`,
  });

  test('bytes nested in a returned value render as their text', async () => {
    const reply = await call(app, '/bytes');
    assert.deepEqual(reply.json, { text: 'héllo', buffer: 'buf', list: ['hi'], empty: '' });
  });

  test('an empty Uint8Array, the one kind that leaves {} in JSON, renders as its text in a long value', async () => {
    const reply = await call(app, '/empty-bytes');
    assert.deepEqual(reply.json, {
      note: 'long enough for its JSON to be scanned rather than walked',
      empty: '',
    });
  });

  test('authScheme is "" without a token or without the header', async () => {
    assert.equal(
      ((await call(app, '/info', { headers: { authorization: 'Basic' } })).json as { scheme: string }).scheme,
      '',
    );
    assert.equal(((await call(app, '/info')).json as { scheme: string }).scheme, '');
    const bearer = await call(app, '/info', { headers: { authorization: 'Bearer abc' } });
    assert.equal((bearer.json as { scheme: string }).scheme, 'bearer');
  });

  test('TRACE with static trace = true: the request line and headers as message/http', async () => {
    // A web Request refuses TRACE, so this goes through node:http.
    const server = createServer(app.listener).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const trace = (path: string) =>
      new Promise<{ status: number; type: string | undefined; body: string }>((resolve, reject) => {
        const req = request(
          { port, host: '127.0.0.1', path, method: 'TRACE', headers: { 'x-probe': 'yes' } },
          (res) => {
            let body = '';
            res.setEncoding('utf8').on('data', (chunk: string) => {
              body += chunk;
            });
            res.on('end', () =>
              resolve({ status: res.statusCode ?? 0, type: res.headers['content-type'], body }),
            );
          },
        );
        req.on('error', reject).end();
      });
    try {
      const reply = await trace('/traced/x?y=1');
      assert.equal(reply.status, 200);
      assert.equal(reply.type, 'message/http');
      assert.match(reply.body, /^TRACE \/traced\/x\?y=1 HTTP\/1\.1\n/);
      assert.match(reply.body, /\nx-probe: yes(\n|$)/);
      assert.equal((await trace('/info')).status, 501);
    } finally {
      server.close();
    }
  });

  test('acceptMediaType, encoding and ipAddresses', async () => {
    const reply = await call(app, '/info', {
      headers: {
        accept: 'application/json;q=0.9, text/csv',
        'content-type': 'text/plain; charset=Latin1',
        'x-forwarded-for': '10.0.0.1, 203.0.113.9',
        'x-real-ip': '198.51.100.2',
      },
    });
    const json = reply.json as Record<string, unknown>;
    assert.equal(json.accept, 'text/csv');
    assert.equal(json.encoding, 'latin1');
    assert.deepEqual(json.ips, ['10.0.0.1', '203.0.113.9', '198.51.100.2']);
    const wildcard = await call(app, '/info', { headers: { accept: '*/*' } });
    assert.equal((wildcard.json as Record<string, unknown>).accept, '');
  });

  test('url.controller() and url.module() (reference UrlTest)', async () => {
    const info = (await call(app, '/info/extra')).json as Record<string, string>;
    assert.equal(info.controller, 'http://127.0.0.1/info');
    assert.equal(info.more, 'http://127.0.0.1/info/x?q=1');
    assert.equal(info.module, 'http://127.0.0.1/');
    const bar = (await call(app, '/foomod/bar/baz')).json as Record<string, string>;
    assert.equal(bar.controller, 'http://127.0.0.1/foomod/bar');
    assert.equal(bar.module, 'http://127.0.0.1/foomod');
  });
});

describe('rateLimit (reference RateLimitDecorator)', async () => {
  const app = await appWith({
    'index.ts': `
      import { rateLimit } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).pathname)};
      let now = 0;
      const limited = rateLimit({ limit: 3, ttl: 10, key: (c) => c.request.header('x-user'), now: () => now });
      export class Clock extends Controller { POST(ms) { now += Number(ms); } }
      export class Limited extends Controller {
        @limited
        GET(id) { return id; }
      }`,
  });
  const as = (user: string, target = '/limited/1') => call(app, target, { headers: { 'x-user': user } });

  test('3 requests pass, the 4th is 429 with the wait; other keys are counted apart', async () => {
    for (let i = 0; i < 3; i += 1) assert.equal((await as('ada')).status, 200);
    const refused = await as('ada');
    assert.equal(refused.status, 429);
    assert.equal(refused.json, 'Please wait 10 seconds to make a request');
    assert.equal((await as('bob')).status, 200);
  });

  test('the limit is checked before binding: a refused key gets 429 even with a wrong path', async () => {
    assert.equal((await as('ada', '/limited/1/2/3')).status, 429);
  });

  test('after ttl seconds the key starts over', async () => {
    await call(app, '/clock/4000', { method: 'POST' });
    assert.equal((await as('ada')).json, 'Please wait 6 seconds to make a request');
    await call(app, '/clock/6000', { method: 'POST' });
    for (let i = 0; i < 3; i += 1) assert.equal((await as('ada')).status, 200);
    assert.equal((await as('ada')).status, 429);
  });

  test('a request without a key is not limited', async () => {
    for (let i = 0; i < 5; i += 1) assert.equal((await call(app, '/limited/1')).status, 200);
  });
});

test('MemoryRateLimitStore keeps at most maxKeys keys, dropping the least recently allowed', async () => {
  const { MemoryRateLimitStore } = await import('../src/index.js');
  const store = new MemoryRateLimitStore(2);
  assert.equal(store.hit('a', 1, 10, 0), 0);
  assert.equal(store.hit('b', 1, 10, 0), 0);
  assert.equal(store.hit('a', 1, 10, 1000), 9);
  assert.equal(store.hit('c', 1, 10, 1000), 0);
  // 'a' was allowed least recently, so it was dropped and counts afresh.
  assert.equal(store.hit('a', 1, 10, 2000), 0);
  assert.equal(store.hit('c', 1, 10, 2000), 9);
});
