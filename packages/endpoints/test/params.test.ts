import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createApp, EndpointsError } from '../src/index.js';
import { appWith, call, writeControllers } from './support/controllers.js';

describe('parameter rules with param({…}) (reference Annotated flags, §1.5)', async () => {
  const app = await appWith({
    'index.ts': `
      import { param } from ${JSON.stringify(new URL('../src/index.js', import.meta.url).pathname)};
      export class Rules extends Controller {
        static types = {
          GET: {
            userIds: param({ type: [Number], names: ['user_ids[]'], maxSize: 3 }),
            color: param({ choices: ['red', 'green'] }),
            code: param({ regex: /^[a-z]{3}$/ }),
            size: param({ type: Number, minSize: 2, maxSize: 4 }),
            name: param({ allowEmpty: false, minSize: 2 }),
          },
        };
        GET({ userIds = [], color = 'red', code = 'abc', size = 3, name = 'xx' } = {}) {
          return { userIds, color, code, size, name };
        }
      }`,
  });

  test('names: an alias fills the argument (user_ids[] repeated → userIds)', async () => {
    const reply = await call(app, '/rules?user_ids[]=12&user_ids[]=34');
    assert.equal(reply.status, 200, reply.text);
    assert.deepEqual((reply.json as { userIds: number[] }).userIds, [12, 34]);
  });

  test('names: the alias and the name together → 400 multiple values', async () => {
    const reply = await call(app, '/rules?user_ids[]=1&userIds=2');
    assert.equal(reply.status, 400);
    assert.equal(reply.json, "Rules.GET() got multiple values for argument 'userIds'");
  });

  const failures: [string, string][] = [
    ['/rules?color=blue', `argument 'color': value "blue" not in choices ["red","green"]`],
    ['/rules?code=ABCD', "argument 'code': failed regex check"],
    ['/rules?size=1', "argument 'size': was smaller than 2"],
    ['/rules?size=5', "argument 'size': was bigger than 4"],
    ['/rules?size=x', `argument 'size': expected a number, got "x"`],
    ['/rules?name=', "argument 'name': was empty"],
    ['/rules?name=a', "argument 'name': was smaller than 2"],
    ['/rules?userIds=1,2,3,4', "argument 'userIds': was bigger than 3"],
  ];
  for (const [target, message] of failures) {
    test(`${target} → 400 ${message}`, async () => {
      const reply = await call(app, target);
      assert.equal(reply.status, 400);
      assert.equal(reply.json, message);
    });
  }

  test('values inside the rules pass', async () => {
    const reply = await call(app, '/rules?color=green&code=xyz&size=4&name=ok&userIds=1,2');
    assert.deepEqual(reply.json, { userIds: [1, 2], color: 'green', code: 'xyz', size: 4, name: 'ok' });
  });
});

describe('static types is checked at startup', () => {
  const cases: [string, string, RegExp][] = [
    [
      'an unknown HTTP method',
      `export class Foo extends Controller { static types = { GTE: { page: Number } }; GET(page) {} }`,
      /Foo in .*index\.ts: static types names 'GTE', which is not an HTTP method of the class \(it has GET\)/,
    ],
    [
      'a parameter the handler does not have',
      `export class Foo extends Controller { static types = { GET: { pgae: Number } }; GET(page, { tags } = {}) {} }`,
      /Foo in .*index\.ts: static types\.GET names 'pgae', which is not a parameter of GET \(it has page, tags\)/,
    ],
  ];
  for (const [what, source, message] of cases) {
    test(`${what} is a startup error naming the class and the key`, async () => {
      const dir = writeControllers({ 'index.ts': source });
      await assert.rejects(createApp({ controllerPrefix: dir }), (error: unknown) => {
        assert.ok(error instanceof EndpointsError);
        assert.equal(error.code, 'INVALID_TYPES');
        assert.match(error.message, message);
        return true;
      });
    });
  }

  test('a handler collecting unknown keywords accepts a cast for any name', async () => {
    const app = await appWith({
      'index.ts': `export class Foo extends Controller { static types = { GET: { n: Number } }; GET({ ...kw } = {}) { return kw; } }`,
    });
    assert.deepEqual((await call(app, '/foo?n=2')).json, { n: 2 });
  });
});
