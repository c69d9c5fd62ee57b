import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp } from '../src/index.js';
import { appWith, call, writeControllers } from './support/controllers.js';

describe('exceptions (reference §1.8)', async () => {
  const logged: string[] = [];
  const source = {
    'index.ts': `
      export class Default extends Controller {
        GET(kind) {
          switch (kind) {
            case 'call-error': throw new CallError(422, 'bad', { body: { errors: ['x'] }, headers: { 'X-Err': '1' } });
            case 'call-error-bare': throw new CallError(401);
            case 'call-error-message': throw new CallError(409, 'already exists');
            case 'redirect': throw new Redirect('http://example.com');
            case 'redirect-301': throw new Redirect('/elsewhere', 301);
            case 'denied-basic': throw new AccessDenied('', { scheme: 'basic' });
            case 'denied': throw new AccessDenied();
            case 'denied-realm': throw new AccessDenied('who are you', { scheme: 'bearer', realm: 'api' });
            case 'stop-205': throw new CallStop(205);
            case 'stop-body': throw new CallStop(200, 'this is the body');
            case 'stop-204': throw new CallStop(204);
            case 'plain': throw new Error('bah');
            case 'bad-gateway': throw new CallError(502, 'upstream down');
            case 'type-error': return undefined.nothing;
            case 'thrown-string': throw 'just a string';
            case 'cyclic-error-body': { const body = {}; body.self = body; throw new CallError(400, 'bad', { body }); }
            case 'code-set': this.response.code = 330; this.response.headers.set('x-before', '1'); throw new Error('after setting');
          }
        }
      }`,
  };
  const app = await appWith(source, { log: (line) => logged.push(line) });

  const rows: [string, number, Record<string, string | null>, string][] = [
    [
      'call-error',
      422,
      { 'x-err': '1', 'content-type': 'application/json; charset=utf-8' },
      '{"errors":["x"]}',
    ],
    ['call-error-bare', 401, {}, '"CallError(401)"'],
    ['call-error-message', 409, {}, '"already exists"'],
    ['redirect', 302, { location: 'http://example.com', 'content-type': null }, ''],
    ['redirect-301', 301, { location: '/elsewhere' }, ''],
    ['denied-basic', 401, { 'www-authenticate': 'Basic' }, '"AccessDenied(401)"'],
    ['denied', 401, { 'www-authenticate': 'Auth' }, '"AccessDenied(401)"'],
    ['denied-realm', 401, { 'www-authenticate': 'Bearer realm="api"' }, '"who are you"'],
    ['stop-205', 205, { 'content-type': null }, ''],
    ['stop-body', 200, {}, '"this is the body"'],
    ['stop-204', 204, {}, ''],
    ['plain', 500, { 'content-type': 'application/json; charset=utf-8' }, '"bah"'],
    ['type-error', 500, {}, `"Cannot read properties of undefined (reading 'nothing')"`],
    ['thrown-string', 500, {}, '"just a string"'],
    ['code-set', 500, { 'x-before': '1' }, '"after setting"'],
  ];
  for (const [kind, status, headers, body] of rows) {
    test(`${kind} → ${status}`, async () => {
      const reply = await call(app, `/${kind}`);
      assert.equal(reply.status, status);
      for (const [name, value] of Object.entries(headers)) assert.equal(reply.headers.get(name), value, name);
      assert.equal(reply.text, body);
    });
  }

  test('a CallError body JSON cannot represent is a 500 saying so', async () => {
    const reply = await call(app, '/cyclic-error-body');
    assert.equal(reply.status, 500);
    assert.match(
      String(reply.json),
      /^the handler's response could not be sent: Converting circular structure/,
    );
  });

  test('unexpected failures and 5xx CallErrors are logged with their stack; other CallErrors are not', async () => {
    logged.length = 0;
    await call(app, '/plain');
    await call(app, '/call-error');
    await call(app, '/bad-gateway');
    assert.equal(logged.length, 2);
    assert.match(logged[0] as string, /GET \/plain failed: Error: bah\n\s+at /);
    assert.match(logged[1] as string, /GET \/bad-gateway failed: CallError: upstream down\n\s+at /);
  });

  test('the 501 and 404 of routing are answers, not failures: nothing is logged', async () => {
    logged.length = 0;
    assert.equal((await call(app, '/', { method: 'POST' })).status, 501);
    assert.equal((await call(app, '/nowhere/at/all/x/y', { method: 'POST' })).status, 404);
    assert.deepEqual(logged, []);
  });

  test('debug puts the stack in the 500 body', async () => {
    const debugApp = await createApp({
      controllerPrefix: writeControllers(source),
      debug: true,
      log: () => {},
    });
    const reply = await call(debugApp, '/plain');
    assert.match(String(reply.json), /^Error: bah\n\s+at /);
  });

  test('an async handler that outlives the request timeout → 503', async () => {
    // A real, short timeout: with mocked timers the tick could come before the dispatcher arms
    // its timer (controllers load asynchronously), and the request would then never settle.
    const slow = await appWith(
      { 'index.ts': `export class Default extends Controller { GET() { return new Promise(() => {}); } }` },
      { requestTimeout: 50 },
    );
    const response = await slow.fetch(new Request('http://127.0.0.1/'));
    assert.equal(response.status, 503);
    assert.equal(await response.json(), 'GET / did not finish within 50 ms');
  });
});
