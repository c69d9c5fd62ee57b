import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { appWith, call } from './support/controllers.js';

const basic = (user: string, password: string) =>
  `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ADA = { authorization: basic('ada', 'secret') };

describe('lifecycle order: decorators run before the arguments are bound (reference call.py)', async () => {
  const app = await appWith({
    'index.ts': `
      const check = (username, password) => username === 'ada' && password === 'secret';
      export class Secret extends Controller {
        @authBasic(check)
        GET(id, { verbose = 'no' } = {}) { return { id, verbose }; }
      }
      @authBearer((token) => token === 'good')
      export class Vault extends Controller {
        static types = { GET: { count: Number } };
        GET(id, { count }) { return { id, count }; }
      }`,
  });

  const anonymous: [string, string][] = [
    ['an extra path segment', '/secret/1/2/3'],
    ['an unknown keyword', '/secret/1?nope=1'],
    ['a missing positional', '/secret'],
  ];
  for (const [what, target] of anonymous) {
    test(`unauthenticated with ${what} → 401 with WWW-Authenticate, no signature leaked`, async () => {
      const reply = await call(app, target);
      assert.equal(reply.status, 401);
      assert.equal(reply.headers.get('www-authenticate'), 'Basic');
      assert.equal(reply.json, 'username is required');
      assert.doesNotMatch(reply.text, /Secret|GET|verbose|argument/);
    });
  }

  test('once authenticated, binding answers as before: 404 for extra segments, 400 for an unknown keyword', async () => {
    assert.equal((await call(app, '/secret/1/2/3', { headers: ADA })).status, 404);
    assert.equal((await call(app, '/secret/1?nope=1', { headers: ADA })).status, 400);
    assert.deepEqual((await call(app, '/secret/1', { headers: ADA })).json, { id: '1', verbose: 'no' });
  });

  test('a cast failure comes after the auth check too', async () => {
    const anonymous = await call(app, '/vault/1?count=x');
    assert.equal(anonymous.status, 401);
    assert.equal(anonymous.headers.get('www-authenticate'), 'Bearer');
    const authed = await call(app, '/vault/1?count=x', { headers: { authorization: 'Bearer good' } });
    assert.equal(authed.status, 400);
    const ok = await call(app, '/vault/1?count=2', { headers: { authorization: 'Bearer good' } });
    assert.deepEqual(ok.json, { id: '1', count: 2 });
  });
});

describe('class decorators decorate every HTTP method, and the class stays routed', async () => {
  const app = await appWith({
    'index.ts': `
      @httpCache(500)
      export class Cached extends Controller {
        GET() { return 'get'; }
        POST() { return 'post'; }
        helper() { return 'not a handler'; }
      }
      class Base extends Controller { GET() { return 'inherited'; } }
      export const Wrapped = noHttpCache()(class Wrapped extends Base { PUT() { return 'put'; } });
      @authBasic((u, p) => u === 'ada' && p === 'secret')
      export class Both extends Controller {
        @httpCache(60)
        GET() { return 'both'; }
      }`,
  });

  test('@httpCache(500) on a class: GET and POST both cache, the class answers its path', async () => {
    for (const method of ['GET', 'POST']) {
      const reply = await call(app, '/cached', { method });
      assert.equal(reply.status, 200, method);
      assert.equal(reply.json, method.toLowerCase());
      assert.equal(reply.headers.get('cache-control'), 'max-age=500');
    }
  });

  test('as a wrapper on a class: inherited and own methods are decorated', async () => {
    for (const [method, body] of [
      ['GET', 'inherited'],
      ['PUT', 'put'],
    ]) {
      const reply = await call(app, '/wrapped', { method });
      assert.equal(reply.json, body);
      assert.equal(reply.headers.get('pragma'), 'no-cache');
    }
  });

  test('a class decorator wraps the method decorators: auth first, then the cache header', async () => {
    const refused = await call(app, '/both');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('cache-control'), null);
    const served = await call(app, '/both', { headers: ADA });
    assert.equal(served.json, 'both');
    assert.equal(served.headers.get('cache-control'), 'max-age=60');
  });
});

describe('controller hooks an application overrides (reference handle, get_request_params, …)', async () => {
  const app = await appWith({
    'index.ts': `
      export class Hooked extends Controller {
        trail = [];
        async handle() {
          this.trail.push('handle');
          const body = await super.handle();
          return { body, trail: this.trail };
        }
        getRequestParams() {
          this.trail.push('getRequestParams');
          return { positionals: this.request.positionals, keywords: { ...this.request.keywords, added: 'yes' } };
        }
        getMethodParams() {
          this.trail.push('getMethodParams');
          return super.getMethodParams();
        }
        getResponseBody(body) {
          this.trail.push('getResponseBody');
          return body === undefined ? 'nothing' : body;
        }
        handleError(error) {
          this.trail.push('handleError');
          if (error instanceof RangeError) return 'recovered: ' + error.message;
          throw error;
        }
        GET(id, { added }) {
          this.trail.push('GET');
          if (id === 'range') throw new RangeError('out of range');
          if (id === 'other') throw new CallError(409, 'conflict');
          return { id, added };
        }
      }`,
  });

  test('they run in the documented order around the handler', async () => {
    const reply = await call(app, '/hooked/7');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, {
      body: { id: '7', added: 'yes' },
      trail: ['handle', 'getRequestParams', 'getMethodParams', 'GET', 'getResponseBody'],
    });
  });

  test('handleError may answer with a value, or rethrow', async () => {
    const recovered = await call(app, '/hooked/range');
    assert.equal(recovered.status, 200);
    assert.equal((recovered.json as { body: string }).body, 'recovered: out of range');
    const rethrown = await call(app, '/hooked/other');
    assert.equal(rethrown.status, 409);
    assert.equal(rethrown.json, 'conflict');
  });

  test('a binding failure reaches handleError too', async () => {
    const reply = await call(app, '/hooked/1/2');
    assert.equal(reply.status, 404);
  });
});

describe('decorator building blocks', async () => {
  const app = await appWith({
    'index.ts': `
      class Envelope extends ControllerDecorator {
        constructor(label) { super(); this.label = label; }
        before(controller) { controller.response.headers.set('x-before', this.label); if (controller.request.query.deny) return false; }
        after(controller, body) { return { [this.label]: body }; }
        error(controller, error) { if (error.message === 'soft') return { softened: true }; throw error; }
      }
      const envelope = (label) => new Envelope(label).decorator();
      export class Wrapped extends Controller {
        @envelope('outer')
        @envelope('inner')
        GET(kind) { if (kind === 'soft') throw new Error('soft'); if (kind === 'hard') throw new Error('hard'); return kind; }
      }
      class TokenAuth extends AuthDecorator {
        before(controller) {
          if (controller.request.header('x-token') === 'let-me-in') return true;
          throw new Error('a valid X-Token is required');
        }
      }
      export class Token extends Controller {
        @(new TokenAuth({ scheme: 'token', realm: 'api' }).decorator())
        GET() { return 'in'; }
      }
      export class Targeted extends Controller {
        @(new AuthDecorator({ check: (controller) => controller.request.header('x-key') === 'k' }).decorator())
        GET() { return 'targeted'; }
      }
      export class Untargeted extends Controller {
        @(new AuthDecorator().decorator())
        GET() { return 'never'; }
      }
      export class Stepped extends Controller {
        @decorate({ before: (c) => { c.response.headers.set('x-step', '1'); } })
        GET() { return 'stepped'; }
      }`,
  });

  test('ControllerDecorator: after hooks run innermost first, before hooks outermost first', async () => {
    const reply = await call(app, '/wrapped/x');
    assert.deepEqual(reply.json, { outer: { inner: 'x' } });
    assert.equal(reply.headers.get('x-before'), 'inner');
  });

  test('ControllerDecorator: a before returning false refuses with "<Name> check failed"', async () => {
    const reply = await call(app, '/wrapped/x?deny=1');
    assert.equal(reply.status, 500);
    assert.equal(reply.json, 'Envelope check failed');
  });

  test('ControllerDecorator: the error hook may answer with a value, or let the error through', async () => {
    // The inner layer's error hook answers for it; the outer layer's after hook still wraps that.
    assert.deepEqual((await call(app, '/wrapped/soft')).json, { outer: { softened: true } });
    const hard = await call(app, '/wrapped/hard');
    assert.equal(hard.status, 500);
    assert.equal(hard.json, 'hard');
  });

  test('AuthDecorator: any failure is a 401 with WWW-Authenticate for its scheme and realm', async () => {
    const refused = await call(app, '/token');
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Token realm="api"');
    assert.equal(refused.json, 'a valid X-Token is required');
    assert.equal((await call(app, '/token', { headers: { 'x-token': 'let-me-in' } })).json, 'in');
  });

  test('AuthDecorator with a check function; without one, 403 as in the reference', async () => {
    const refused = await call(app, '/targeted');
    assert.equal(refused.status, 401);
    assert.equal(refused.json, 'AuthDecorator check failed');
    assert.equal(refused.headers.get('www-authenticate'), 'Auth');
    assert.equal((await call(app, '/targeted', { headers: { 'x-key': 'k' } })).json, 'targeted');
    const untargeted = await call(app, '/untargeted');
    assert.equal(untargeted.status, 403);
    assert.equal(untargeted.json, 'You need a target function to use authentication');
  });

  test('decorate(hooks) builds a decorator from plain hooks', async () => {
    const reply = await call(app, '/stepped');
    assert.equal(reply.json, 'stepped');
    assert.equal(reply.headers.get('x-step'), '1');
  });
});
