import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appWith, call } from './support/controllers.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

describe('auth helpers', async () => {
  const app = await appWith({
    'index.ts': `
      const check = (username, password) => {
        if (username === 'boom') throw new Error('directory offline');
        if (username === 'banned') throw new CallError(403, 'banned');
        return username === 'ada' && password === 'secret';
      };
      export class Decorated extends Controller {
        @authBasic(check)
        GET(id, { verbose = 'no' } = {}) { return { id, verbose, user: this.request.getAuthBasic().username }; }
      }
      export class Wrapped extends Controller {}
      Wrapped.prototype.GET = authBearer(async (token) => token === 'good-token')(function (id) { return { id }; });
    `,
  });

  test('Basic: missing, wrong and right credentials', async () => {
    const missing = await call(app, '/decorated/1');
    assert.equal(missing.status, 401);
    assert.equal(missing.json, 'username is required');
    assert.equal(missing.headers.get('www-authenticate'), 'Basic');
    const noPassword = await call(app, '/decorated/1', { headers: { authorization: basic('ada', '') } });
    assert.equal(noPassword.json, 'password is required');
    const wrong = await call(app, '/decorated/1', { headers: { authorization: basic('ada', 'nope') } });
    assert.equal(wrong.status, 401);
    assert.equal(wrong.json, 'authBasic check failed');
    const right = await call(app, '/decorated/1?verbose=yes', {
      headers: { authorization: basic('ada', 'secret') },
    });
    assert.equal(right.status, 200);
    assert.deepEqual(right.json, { id: '1', verbose: 'yes', user: 'ada' });
  });

  test('a decorated handler keeps its binding: extra segments are still a 404 after auth', async () => {
    const reply = await call(app, '/decorated/1/2', { headers: { authorization: basic('ada', 'secret') } });
    assert.equal(reply.status, 404);
  });

  test('an error in the check becomes a 401; a CallError passes through', async () => {
    const failing = await call(app, '/decorated/1', { headers: { authorization: basic('boom', 'x') } });
    assert.equal(failing.status, 401);
    assert.equal(failing.json, 'directory offline');
    assert.equal(
      (await call(app, '/decorated/1', { headers: { authorization: basic('banned', 'x') } })).status,
      403,
    );
  });

  test('Bearer: missing, wrong and right tokens', async () => {
    const missing = await call(app, '/wrapped/7');
    assert.equal(missing.status, 401);
    assert.equal(missing.json, 'Authorization bearer token is required');
    assert.equal(missing.headers.get('www-authenticate'), 'Bearer');
    assert.equal((await call(app, '/wrapped/7', { headers: { authorization: 'Bearer bad' } })).status, 401);
    const right = await call(app, '/wrapped/7', { headers: { authorization: 'Bearer good-token' } });
    assert.deepEqual(right.json, { id: '7' });
  });
});

describe('cache helpers', async () => {
  const app = await appWith({
    'index.ts': `
      export class Cached extends Controller { @httpCache(500) GET() { return 1; } }
      export class Uncached extends Controller { @noHttpCache() GET() { return 1; } }`,
  });

  test('httpCache sets max-age, noHttpCache forbids caching', async () => {
    assert.equal((await call(app, '/cached')).headers.get('cache-control'), 'max-age=500');
    const uncached = await call(app, '/uncached');
    assert.equal(uncached.headers.get('cache-control'), 'no-cache, no-store, must-revalidate');
    assert.equal(uncached.headers.get('pragma'), 'no-cache');
    assert.equal(uncached.headers.get('expires'), '0');
  });
});

describe('request helpers', async () => {
  const app = await appWith({
    'index.ts': `
      export class Info extends Controller {
        ANY({ ...kw } = {}, ...args) {
          const r = this.request;
          return { url: r.url.href, path: r.path, method: r.method, query: r.query, keywords: r.keywords,
            positionals: r.positionals, agent: r.header('User-Agent'), all: r.headers.get('x-custom'),
            ip: r.ipAddress ?? null, scheme: r.authScheme ?? null, basic: r.getAuthBasic() ?? null, bearer: r.getAuthBearer() ?? null };
        }
      }`,
  });

  test('url, path, query, keywords, positionals and headers', async () => {
    const reply = await call(app, '/info/a/b?x=1&x=2', {
      headers: { 'user-agent': 'test', 'x-custom': 'yes' },
    });
    assert.deepEqual(reply.json, {
      url: 'http://127.0.0.1/info/a/b?x=1&x=2',
      path: '/info/a/b',
      method: 'GET',
      query: { x: ['1', '2'] },
      keywords: { x: ['1', '2'] },
      positionals: ['a', 'b'],
      agent: 'test',
      all: 'yes',
      ip: null,
      scheme: '',
      basic: null,
      bearer: null,
    });
  });

  test('the client address skips private X-Forwarded-For entries and junk', async () => {
    const reply = await call(app, '/info', {
      headers: { 'x-forwarded-for': 'unknown, 10.0.0.1, 203.0.113.9, 198.51.100.1' },
    });
    assert.equal((reply.json as { ip: string }).ip, '203.0.113.9');
    const realIp = await call(app, '/info', {
      headers: { 'x-forwarded-for': '192.168.1.1', 'x-real-ip': '2001:db8::1' },
    });
    assert.equal((realIp.json as { ip: string }).ip, '2001:db8::1');
  });

  test('Basic and Bearer credentials', async () => {
    const basicReply = (await call(app, '/info', { headers: { authorization: basic('u', 'p:w') } }))
      .json as Record<string, unknown>;
    assert.equal(basicReply.scheme, 'basic');
    assert.deepEqual(basicReply.basic, { username: 'u', password: 'p:w' });
    const bearerReply = (await call(app, '/info', { headers: { authorization: 'Bearer tok' } }))
      .json as Record<string, unknown>;
    assert.equal(bearerReply.bearer, 'tok');
    const malformed = (await call(app, '/info', { headers: { authorization: 'Basic !!!' } })).json as Record<
      string,
      unknown
    >;
    assert.equal(malformed.basic, null);
  });
});
