import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type CliServer, failedStart, startCli } from './support/cli.js';
import { writeControllers } from './support/controllers.js';

/**
 * The reference features an application extends (lifecycle, decorators, hooks, …), once more
 * through the CLI as a process, over one controller tree.
 */
const INDEX = JSON.stringify(new URL('../src/index.js', import.meta.url).pathname);

const CONTROLLERS = {
  'index.ts': `
    import { param, rateLimit } from ${INDEX};
    export class Versioned extends Controller { GET() { return this.request.version(); } }
    export class Limited extends Controller {
      @rateLimit({ limit: 1, ttl: 60, key: (c) => c.request.header('x-user') })
      GET() { return 'ok'; }
    }
    export class Parity extends Controller {
      static trace = true;
      GET(...rest) {
        const r = this.request;
        return { bytes: new TextEncoder().encode('hi'), scheme: r.authScheme, accept: r.acceptMediaType,
          encoding: r.encoding ?? null, ips: r.ipAddresses.length > 0, controller: r.url.controller().pathname };
      }
    }
    export class Secret extends Controller {
      @authBasic((u, p) => u === 'ada' && p === 'secret')
      GET(id) { return id; }
    }
    @httpCache(500)
    export class Cached extends Controller { GET() { return 'get'; } POST() { return 'post'; } }
    export class Hooked extends Controller {
      getResponseBody(body) { return { wrapped: body }; }
      handleError(error) { if (error.message === 'soft') return 'recovered'; throw error; }
      GET(kind) { if (kind === 'soft') throw new Error('soft'); return kind; }
    }
    export class Rules extends Controller {
      static types = { GET: { ids: param({ type: [Number], names: ['ids[]'], maxSize: 2 }), color: param({ choices: ['red'] }) } };
      GET({ ids = [], color = 'red' } = {}) { return { ids, color }; }
    }
    class Shout extends ControllerDecorator {
      after(controller, body) { return String(body).toUpperCase(); }
    }
    export class Loud extends Controller {
      @(new Shout().decorator())
      GET() { return 'quiet'; }
    }`,
};

describe('issue 16 features through the CLI as a process', () => {
  let server: CliServer;
  const get = (path: string, init?: RequestInit) => fetch(`${server.base}${path}`, init);
  before(async () => {
    server = await startCli(writeControllers(CONTROLLERS));
  });
  after(() => server.child.stop());

  test('lifecycle order: an unauthenticated request with extra segments → 401, not 404', async () => {
    const response = await get('/secret/1/2/3?x=1');
    assert.equal(response.status, 401);
    assert.equal(response.headers.get('www-authenticate'), 'Basic');
    assert.equal(await response.json(), 'username is required');
  });

  test('a class decorator decorates every method and the class stays routed', async () => {
    for (const method of ['GET', 'POST']) {
      const response = await get('/cached', { method });
      assert.equal(await response.json(), method.toLowerCase());
      assert.equal(response.headers.get('cache-control'), 'max-age=500');
    }
  });

  test('controller hooks: getResponseBody and handleError', async () => {
    assert.deepEqual(await (await get('/hooked/x')).json(), { wrapped: 'x' });
    assert.deepEqual(await (await get('/hooked/soft')).json(), { wrapped: 'recovered' });
  });

  test('a ControllerDecorator after hook', async () => {
    assert.equal(await (await get('/loud')).json(), 'QUIET');
  });

  test('parameter rules: an alias, a choice and a size', async () => {
    assert.deepEqual(await (await get('/rules?ids[]=1&ids[]=2')).json(), { ids: [1, 2], color: 'red' });
    const badChoice = await get('/rules?color=blue');
    assert.equal(badChoice.status, 400);
    assert.equal(await badChoice.json(), `argument 'color': value "blue" not in choices ["red"]`);
    assert.equal((await get('/rules?ids=1,2,3')).status, 400);
  });

  test('versioning: request.version() from Accept', async () => {
    assert.equal(
      await (await get('/versioned', { headers: { accept: 'application/json;version=v2' } })).json(),
      'v2',
    );
  });

  test('rateLimit: the second request of a key is 429', async () => {
    const headers = { 'x-user': 'ada' };
    assert.equal((await get('/limited', { headers })).status, 200);
    const refused = await get('/limited', { headers });
    assert.equal(refused.status, 429);
    assert.equal(await refused.json(), 'Please wait 60 seconds to make a request');
  });

  test('parity: nested bytes, authScheme, request helpers, TRACE', async () => {
    const reply = await get('/parity/x', {
      headers: { authorization: 'Basic', accept: 'text/csv', 'content-type': 'text/plain; charset=utf-8' },
    });
    assert.deepEqual(await reply.json(), {
      bytes: 'hi',
      scheme: '',
      accept: 'text/csv',
      encoding: 'utf-8',
      ips: true,
      controller: '/parity',
    });
    const { request } = await import('node:http');
    const url = new URL(`${server.base}/parity`);
    const status = await new Promise<number>((resolve, reject) => {
      request({ host: url.hostname, port: url.port, path: '/parity', method: 'TRACE' }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      })
        .on('error', reject)
        .end();
    });
    assert.equal(status, 200);
  });
});

describe('issue 16 startup checks through the CLI as a process', () => {
  test('a typo in static types stops the CLI, naming the class and the key', async () => {
    const prefix = writeControllers({
      'index.ts': `export class Foo extends Controller { static types = { GET: { pgae: Number } }; GET(page) {} }`,
    });
    const { code, stderr } = await failedStart(prefix);
    assert.notEqual(code, 0);
    assert.match(
      stderr,
      /Foo in .*index\.ts: static types\.GET names 'pgae', which is not a parameter of GET/,
    );
  });
});
