import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appWith, call } from './support/controllers.js';

describe('responses (reference §1.7 and project decision 1)', async () => {
  const app = await appWith({
    'index.ts': `
      import { Readable } from 'node:stream';
      export class Default extends Controller {
        GET(kind) {
          switch (kind) {
            case 'object': return { hello: 'world' };
            case 'string': return 'a string';
            case 'number': return 1.5;
            case 'boolean': return true;
            case 'undefined': return undefined;
            case 'null': return null;
            case 'created': this.response.code = 201; return;
            case 'headers': this.response.headers.set('FOO_BAR', 'baz'); this.response.headers.append('set-cookie', 'a=1'); this.response.headers.append('set-cookie', 'b=2'); return;
            case 'csv': this.response.mediaType = 'text/csv'; return 'a,b\\n1,2';
            case 'explicit': this.response.headers.set('content-type', 'text/plain'); return { a: 1 };
            case 'response': return new Response('raw', { status: 202, headers: { 'x-raw': '1' } });
            case 'bytes': return new Uint8Array([104, 105]);
            case 'web-stream': return new ReadableStream({ start(c) { c.enqueue(new TextEncoder().encode('web ')); c.enqueue(new TextEncoder().encode('stream')); c.close(); } });
            case 'async-iterable': return (async function* () { yield new TextEncoder().encode('async '); yield new TextEncoder().encode('iterable'); })();
            case 'node-stream': this.response.mediaType = 'text/plain'; return Readable.from([Buffer.from('node '), Buffer.from('stream')]);
            case 'generator': return (function* () { for (let i = 0; i < 3; i += 1) yield i; })();
            case 'wide': return { big: 10n, map: new Map([['k', 1]]), set: new Set([1, 2]) };
            case 'collections': return { map: new Map([['k', 1]]), set: new Set([1, 2]), padding: 'x'.repeat(80) };
            case 'map': return new Map([['k', 1]]);
            case 'cycle': { const a = {}; a.self = a; return a; }
            case 'function': return () => 1;
          }
        }
      }
      export class Async extends Controller {
        async GET() { return Promise.resolve(Promise.resolve('nested')); }
      }
      export class Feed_xml extends Controller { GET() { return '<feed/>'; } }`,
  });

  const json = 'application/json; charset=utf-8';
  const rows: [string, number, string | null, string][] = [
    ['object', 200, json, '{"hello":"world"}'],
    ['string', 200, json, '"a string"'],
    ['number', 200, json, '1.5'],
    ['boolean', 200, json, 'true'],
    ['undefined', 204, null, ''],
    ['null', 204, null, ''],
    ['created', 201, null, ''],
    ['csv', 200, 'text/csv; charset=utf-8', 'a,b\n1,2'],
    ['explicit', 200, 'text/plain', '{"a":1}'],
    ['bytes', 200, 'application/octet-stream', 'hi'],
    ['web-stream', 200, 'application/octet-stream', 'web stream'],
    ['async-iterable', 200, 'application/octet-stream', 'async iterable'],
    ['node-stream', 200, 'text/plain; charset=utf-8', 'node stream'],
    ['generator', 200, json, '[0,1,2]'],
    ['wide', 200, json, '{"big":"10","map":{"k":1},"set":[1,2]}'],
    // Without a BigInt to force the wider pass: a Map and a Set leave `{}` in the plain JSON.
    ['collections', 200, json, `{"map":{"k":1},"set":[1,2],"padding":"${'x'.repeat(80)}"}`],
    ['map', 200, json, '{"k":1}'],
  ];
  for (const [kind, status, contentType, body] of rows) {
    test(`returning ${kind}`, async () => {
      const reply = await call(app, `/${kind}`);
      assert.equal(reply.status, status);
      assert.equal(reply.headers.get('content-type'), contentType);
      assert.equal(reply.text, body);
    });
  }

  test('handler headers go out, underscores as dashes, cookies kept apart', async () => {
    const reply = await call(app, '/headers');
    assert.equal(reply.status, 204);
    assert.equal(reply.headers.get('foo-bar'), 'baz');
    assert.deepEqual(reply.headers.getSetCookie(), ['a=1', 'b=2']);
  });

  test('a returned Response passes through unchanged', async () => {
    const reply = await call(app, '/response');
    assert.equal(reply.status, 202);
    assert.equal(reply.headers.get('x-raw'), '1');
    assert.equal(reply.text, 'raw');
  });

  test('a value JSON cannot represent is a clean 500', async () => {
    const cycle = await call(app, '/cycle');
    assert.equal(cycle.status, 500);
    assert.match(String(cycle.json), /circular/i);
    assert.equal((await call(app, '/function')).status, 500);
  });

  test('async handlers are awaited through nested promises', async () => {
    assert.equal((await call(app, '/async')).json, 'nested');
  });

  test('a class extension picks the media type (reference test_ext_mediatype)', async () => {
    const reply = await call(app, '/feed.xml');
    assert.match(reply.headers.get('content-type') ?? '', /application\/xml/);
    assert.equal(reply.text, '<feed/>');
  });

  test('HEAD through fetch sends no body', async () => {
    const headApp = await appWith({
      'index.ts': `export class Default extends Controller { HEAD() { return 'x'; } }`,
    });
    const reply = await call(headApp, '/', { method: 'HEAD' });
    assert.equal(reply.status, 200);
    assert.equal(reply.text, '');
  });
});
