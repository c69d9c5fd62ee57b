import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appWith, call } from './support/controllers.js';

const JSON_HEADERS = { 'content-type': 'application/json' };
const FORM_HEADERS = { 'content-type': 'application/x-www-form-urlencoded' };

describe('request bodies (reference §1.6)', async () => {
  const app = await appWith(
    {
      'index.ts': `
      export class Echo extends Controller {
        POST({ ...kw } = {}, ...args) { return { args, kw }; }
        PUT(...args) {
          return args.map((arg) => arg instanceof Uint8Array ? { bytes: [...arg] } : arg);
        }
      }
      export class Upload extends Controller {
        async POST({ file, field, ...rest }) {
          return { name: file.name, type: file.type, text: await file.text(), field, rest };
        }
      }`,
    },
    { bodyLimit: 1024 },
  );

  const rows: [string, Record<string, string>, string | Uint8Array, unknown][] = [
    ['/echo', JSON_HEADERS, '{"a":1,"b":[2]}', { args: [], kw: { a: 1, b: [2] } }],
    ['/echo', JSON_HEADERS, '["foo","bar"]', { args: ['foo', 'bar'], kw: {} }],
    ['/echo', JSON_HEADERS, '[{"foo":1},{"foo":2}]', { args: [{ foo: 1 }, { foo: 2 }], kw: {} }],
    ['/echo', JSON_HEADERS, '42', { args: [42], kw: {} }],
    ['/echo/a', JSON_HEADERS, '[1,"two",{"x":3}]', { args: ['a', 1, 'two', { x: 3 }], kw: {} }],
    [
      '/echo',
      { 'content-type': 'application/vnd.api+json; charset=utf-8' },
      '{"v":true}',
      { args: [], kw: { v: true } },
    ],
    [
      '/echo',
      FORM_HEADERS,
      'foo=1&bar=2&bar=3&che=four+five&e=',
      { args: [], kw: { foo: '1', bar: ['2', '3'], che: 'four five', e: '' } },
    ],
    [
      '/echo/bar/che?baz=q&x=q',
      FORM_HEADERS,
      'baz=body',
      { args: ['bar', 'che'], kw: { baz: 'body', x: 'q' } },
    ],
    ['/echo', { 'content-type': 'text/plain' }, 'just text', { args: ['just text'], kw: {} }],
  ];
  for (const [target, headers, body, expected] of rows) {
    test(`POST ${target} as ${headers['content-type']}`, async () => {
      const reply = await call(app, target, { method: 'POST', headers, body });
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json, expected);
    });
  }

  test('keys like __proto__ are plain data, in bodies and queries alike', async () => {
    const reply = await call(app, '/echo?constructor=q', {
      method: 'POST',
      headers: JSON_HEADERS,
      body: '{"__proto__":{"polluted":true},"toString":"x"}',
    });
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, {
      args: [],
      kw: { constructor: 'q', ['__proto__']: { polluted: true }, toString: 'x' },
    });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });

  test('text/plain honours its charset', async () => {
    const latin1 = new Uint8Array([0x63, 0x61, 0x66, 0xe9]);
    const reply = await call(app, '/echo', {
      method: 'PUT',
      headers: { 'content-type': 'text/plain; charset=latin1' },
      body: latin1,
    });
    assert.deepEqual(reply.json, ['café']);
  });

  test('unknown or missing Content-Type: the raw bytes are one positional', async () => {
    const xml = await call(app, '/echo/p', {
      method: 'PUT',
      headers: { 'content-type': 'application/xml' },
      body: '<a/>',
    });
    assert.deepEqual(xml.json, ['p', { bytes: [...Buffer.from('<a/>')] }]);
    const bare = await call(app, '/echo', { method: 'PUT', body: new Uint8Array([1, 2, 3]) });
    assert.deepEqual(bare.json, [{ bytes: [1, 2, 3] }]);
  });

  test('multipart: a part with a filename is a File, other parts strings, the last repeated field wins', async () => {
    const form = new FormData();
    form.append('field', 'value-1');
    form.append('field', 'value-2');
    form.append('other', 'x');
    form.append('file', new File(['file body'], 'notes.txt', { type: 'text/plain' }));
    const reply = await call(app, '/upload', { method: 'POST', body: form });
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual(reply.json, {
      name: 'notes.txt',
      type: 'text/plain',
      text: 'file body',
      field: 'value-2',
      rest: { other: 'x' },
    });
  });

  const malformed: [string, Record<string, string>, string | Uint8Array, RegExp][] = [
    ['invalid JSON', JSON_HEADERS, '{bad', /^invalid JSON body: /],
    [
      'malformed multipart',
      { 'content-type': 'multipart/form-data; boundary=xyz' },
      'no parts here',
      /^invalid multipart body/,
    ],
    [
      'multipart without a boundary',
      { 'content-type': 'multipart/form-data' },
      '--x\r\n',
      /^invalid multipart body/,
    ],
    [
      'invalid UTF-8 text',
      { 'content-type': 'text/plain' },
      new Uint8Array([0xff, 0xfe, 0xfd]),
      /not valid utf-8/,
    ],
    [
      'an unknown charset',
      { 'content-type': 'text/plain; charset=klingon' },
      'x',
      /unsupported charset 'klingon'/,
    ],
  ];
  for (const [name, headers, body, message] of malformed) {
    test(`${name} → 400`, async () => {
      const reply = await call(app, '/echo', { method: 'POST', headers, body });
      assert.equal(reply.status, 400);
      assert.match(String(reply.json), message);
    });
  }

  test('a body over the limit → 413, by Content-Length or by counting a streamed body', async () => {
    const big = 'x'.repeat(2000);
    const declared = await call(app, '/echo', {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: big,
    });
    assert.equal(declared.status, 413);
    assert.match(String(declared.json), /larger than the limit of 1024 bytes/);
    const stream = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 20; i += 1) controller.enqueue(new Uint8Array(100));
        controller.close();
      },
    });
    const response = await app.fetch(
      new Request('http://127.0.0.1/echo', { method: 'PUT', body: stream, duplex: 'half' } as RequestInit),
    );
    assert.equal(response.status, 413);
  });
});
