import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp } from '../src/index.js';
import { appWith, call, writeControllers } from './support/controllers.js';

describe('binding statuses (reference §1.4 table)', async () => {
  const app = await appWith({
    'index.ts': `
      export class Default extends Controller { GET() { return 'root'; } }
      export class Foo extends Controller { GET(one, two = null, { ...params } = {}) { return { one, two, params }; } }
      export class Noargs extends Controller { GET() { return 'none'; } }
      export class Pos extends Controller { GET(a, b) { return [a, b]; } }
      export class Posq extends Controller { POST(bar, che, bam) { return [bar, che, bam]; } }
      export class Kwonly extends Controller { GET({ req, opt = 'd' }) { return { req, opt }; } }
      export class Up extends Controller { POST(file, { ...kw } = {}) { return 'got file'; } }
      export class Typeerrors extends Controller { GET(bar, { che }) { return [bar, che]; } }
      export class Catchall extends Controller { POST(first, { k = 'kd' } = {}, ...rest) { return { first, k, rest }; } }
      export class Needed extends Controller { POST(needed_bit) { return needed_bit; } }
    `,
  });

  const rows: [string, string, number, unknown, Record<string, string>?][] = [
    ['GET', '/foo/one', 200, { one: 'one', two: null, params: {} }],
    [
      'GET',
      '/foo/one?param1=val1&param2=val2',
      200,
      { one: 'one', two: null, params: { param1: 'val1', param2: 'val2' } },
    ],
    ['GET', '/foo', 404, "Foo.GET() missing 1 required positional argument: 'one'"],
    ['GET', '/foo/one/two', 200, { one: 'one', two: 'two', params: {} }],
    ['GET', '/foo/one/two/three', 404, 'Foo.GET() takes from 1 to 2 positional arguments but 3 were given'],
    ['GET', '/foo?one=q', 200, { one: 'q', two: null, params: {} }],
    ['GET', '/foo/one?one=q', 400, "Foo.GET() got multiple values for argument 'one'"],
    ['GET', '/bar', 404, 'Default.GET() takes 0 positional arguments but 1 was given'],
    ['GET', '/?x=1', 400, "Default.GET() got an unexpected keyword argument 'x'"],
    ['GET', '/noargs/bar/baz?che=1&boo=2', 400, "Noargs.GET() got an unexpected keyword argument 'che'"],
    ['GET', '/pos/1', 404, "Pos.GET() missing 1 required positional argument: 'b'"],
    ['GET', '/pos?a=1&b=2', 200, ['1', '2']],
    ['POST', '/posq/1/2?bam=3', 200, ['1', '2', '3']],
    ['POST', '/posq/1/2', 404, "Posq.POST() missing 1 required positional argument: 'bam'"],
    ['GET', '/kwonly', 400, "Kwonly.GET() missing 1 required keyword-only argument: 'req'"],
    ['GET', '/kwonly/x?req=1', 404, 'Kwonly.GET() takes 0 positional arguments but 1 was given'],
    ['GET', '/kwonly?req=1', 200, { req: '1', opt: 'd' }],
    ['GET', '/typeerrors/bar', 400, "Typeerrors.GET() missing 1 required keyword-only argument: 'che'"],
    ['GET', '/typeerrors', 404, "Typeerrors.GET() missing 1 required positional argument: 'bar'"],
    ['POST', '/catchall/a/b/c?k=1', 200, { first: 'a', k: '1', rest: ['b', 'c'] }],
    ['POST', '/catchall/a', 200, { first: 'a', k: 'kd', rest: [] }],
    ['POST', '/needed', 404, "Needed.POST() missing 1 required positional argument: 'needed_bit'"],
  ];
  for (const [method, target, status, body] of rows) {
    test(`${method} ${target} → ${status}`, async () => {
      const reply = await call(app, target, { method });
      assert.equal(reply.status, status, reply.text);
      assert.deepEqual(reply.json, body);
    });
  }

  test('a form field fills a positional-or-keyword parameter; a missing required body field is a 404', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    assert.deepEqual((await call(app, '/posq/1/2', { method: 'POST', headers: form, body: 'bam=3' })).json, [
      '1',
      '2',
      '3',
    ]);
    assert.equal((await call(app, '/up', { method: 'POST', headers: form, body: 'other=1' })).status, 404);
  });
});

describe('reference test_routing_error_unexpected_args and test_routing_error_no_args', async () => {
  const one = await appWith({
    'index.ts': `export class Default extends Controller { GET(foo) { return foo; } }`,
  });
  const oneKw = await appWith({
    'index.ts': `export class Default extends Controller { GET(foo, { ...kwargs } = {}) { return [foo, kwargs]; } }`,
  });
  const none = await appWith({
    'index.ts': `export class Default extends Controller { GET() { return 'x'; } }`,
  });
  const onlyKw = await appWith({
    'index.ts': `export class Default extends Controller { GET({ ...kwargs }) { return kwargs; } }`,
  });

  test('GET(foo)', async () => {
    for (const target of [
      '/foo/bar?foo=2',
      '/foo/bar?che=2',
      '/foo/bar?foo=1&bar=2',
      '/foo?foo=1&bar=2',
      '/foo?bar=2',
    ]) {
      assert.equal((await call(one, target)).status, 400, target);
    }
    assert.equal((await call(one, '/foo/bar')).status, 404);
    assert.equal((await call(oneKw, '/foo/bar?foo=1&bar=2')).status, 400);
  });

  test('GET() and GET({...kwargs})', async () => {
    assert.equal((await call(none, '/?foo=1&bar=2')).status, 400);
    assert.equal((await call(none, '/foo/bar/che/baz/boom/bam/blah')).status, 404);
    assert.equal((await call(onlyKw, '/foo/bar/che/baz/boom/bam/blah?foo=1')).status, 404);
    const reply = await call(onlyKw, '/?foo=1&bar=2');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, { foo: '1', bar: '2' });
  });

  test('a repeated query key is a list; a bare key is an empty string', async () => {
    assert.deepEqual((await call(onlyKw, '/?a=1&a=2&b')).json, { a: ['1', '2'], b: '' });
  });
});

describe('casts and validation (failure → 400)', async () => {
  const app = await appWith({
    'index.ts': `
      import { z } from 'zod';
      const even = { '~standard': { version: 1, vendor: 'test', validate: async (value) =>
        Number(value) % 2 === 0 ? { value: Number(value) } : { issues: [{ message: 'must be even' }] } } };
      export class Default extends Controller {
        static types = { GET: {
          n: Number, flag: Boolean, ids: [Number], day: (raw) => { if (!/^\\d{4}-\\d{2}-\\d{2}$/.test(raw)) throw new Error('expected YYYY-MM-DD'); return raw; },
          size: z.coerce.number().int().min(2).max(4), color: z.enum(['red', 'blue']), pair: even,
        } };
        GET(n = undefined, { flag = undefined, ids = undefined, day = undefined, size = undefined, color = undefined, pair = undefined } = {}) {
          return { n, flag, ids, day, size, color, pair };
        }
      }`,
  });

  const good: [string, Record<string, unknown>][] = [
    ['/12', { n: 12 }],
    ['/?flag=true', { flag: true }],
    ['/?flag=0', { flag: false }],
    ['/?ids=1,2,3', { ids: [1, 2, 3] }],
    ['/?ids=1&ids=2', { ids: [1, 2] }],
    ['/?day=2024-01-02', { day: '2024-01-02' }],
    ['/?size=3', { size: 3 }],
    ['/?color=red', { color: 'red' }],
    ['/?pair=4', { pair: 4 }],
  ];
  for (const [target, expected] of good) {
    test(`GET ${target} casts`, async () => {
      const reply = await call(app, target);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json, expected);
    });
  }

  const bad: [string, RegExp][] = [
    ['/abc', /argument 'n': expected a number, got "abc"/],
    ['/?flag=maybe', /argument 'flag': expected true, false, 1 or 0/],
    ['/?ids=1,x', /argument 'ids': expected a number/],
    ['/?day=tomorrow', /argument 'day': expected YYYY-MM-DD/],
    ['/?size=9', /argument 'size':/],
    ['/?color=green', /argument 'color':/],
    ['/?pair=3', /argument 'pair': must be even/],
  ];
  for (const [target, message] of bad) {
    test(`GET ${target} → 400`, async () => {
      const reply = await call(app, target);
      assert.equal(reply.status, 400);
      assert.match(String(reply.json), message);
    });
  }

  test('a malformed cast table fails at load', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { static types = { GET: { a: [Number, String] } }; GET(a) {} }`,
    });
    await assert.rejects(createApp({ controllerPrefix: dir }), /list cast is written \[T\]/);
  });
});
