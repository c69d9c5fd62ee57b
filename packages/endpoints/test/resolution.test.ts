import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, test } from 'node:test';
import { createApp, EndpointsError } from '../src/index.js';
import { appWith, call, writeControllers } from './support/controllers.js';

const echo = (label: string) => `GET(...args) { return ['${label}', ...args]; }`;

describe('module, class and positional resolution (reference test_find_controller_info_advanced)', async () => {
  const app = await appWith({
    'index.ts': `export class Default extends Controller { ${echo('root')} }
      export class CheBaz extends Controller { GET() { return 'CheBaz'; } }
      export class Robots_txt extends Controller { GET() { return 'robots'; } }
      export class Secret extends Controller { static private = true; GET() { return 'secret'; } }
      export class _Hidden extends Controller { GET() { return 'hidden'; } }
      export class HiddenController extends Controller { GET() { return 'hidden'; } }
      export class Nomodbar { GET() { return 'not a controller'; } }`,
    'default.ts': `export class Default extends Controller { GET() { return 'default.Default'; } }`,
    'foo/index.ts': `export class Default extends Controller { ${echo('foo.Default')} }
      export class Bar extends Controller { ${echo('foo.Bar')} }`,
    'foo/baz.ts': `export class Default extends Controller { ${echo('foo.baz.Default')} }
      export class Che extends Controller { GET() { return 'foo.baz.Che'; } }`,
    'foo/boom.ts': `export default class extends Controller { GET() { return 'foo.boom'; } }`,
    'foo_bar.ts': `export class Default extends Controller { GET() { return 'foo-bar module'; } }`,
  });

  const rows: [string, unknown][] = [
    ['/', ['root']],
    ['/default', 'default.Default'],
    ['/foo/baz', ['foo.baz.Default']],
    ['/foo/bar/happy/sad', ['foo.Bar', 'happy', 'sad']],
    ['/happy', ['root', 'happy']],
    ['/foo/baz/che', 'foo.baz.Che'],
    ['/foo/baz/happy', ['foo.baz.Default', 'happy']],
    ['/foo/happy', ['foo.Default', 'happy']],
    ['/foo/boom', 'foo.boom'],
    ['/foo-bar', 'foo-bar module'],
    ['/foo_bar', 'foo-bar module'],
    ['/FOO-BAR', 'foo-bar module'],
    // Trailing, doubled and absent slashes are one path.
    ['/foo/', ['foo.Default']],
    ['//foo', ['foo.Default']],
    // A class answers its kebab, snake and upper-case spellings only.
    ['/che-baz', 'CheBaz'],
    ['/che_baz', 'CheBaz'],
    ['/CHE-BAZ', 'CheBaz'],
    ['/CHE_BAZ', 'CheBaz'],
    ['/CheBaz', ['root', 'CheBaz']],
    ['/chebaz', ['root', 'chebaz']],
    ['/FOO', ['foo.Default']],
    ['/Foo', ['root', 'Foo']],
    // The first underscore of a class name starts an extension (its media type is tested below).
    ['/robots', ['root', 'robots']],
    // Private and non-controller classes are not routable: the path falls to Default.
    ['/secret', ['root', 'secret']],
    ['/-hidden', ['root', '-hidden']],
    ['/hidden', ['root', 'hidden']],
    ['/nomodbar', ['root', 'nomodbar']],
    // Segments are percent-decoded after splitting, so an encoded slash stays in its segment.
    ['/a%2Fb', ['root', 'a/b']],
  ];
  for (const [target, expected] of rows) {
    test(`GET ${target}`, async () => {
      const reply = await call(app, target);
      assert.equal(reply.status, 200, reply.text);
      assert.deepEqual(reply.json, expected);
    });
  }

  test('an extension class answers with the media type of its extension', async () => {
    const reply = await call(app, '/robots.txt');
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(reply.text, 'robots');
  });

  test('a malformed percent-encoding is a 400', async () => {
    const reply = await call(app, '/%E0%A4%A');
    assert.equal(reply.status, 400);
    assert.match(String(reply.json), /malformed percent-encoding/);
  });
});

describe('routing statuses (reference §1.3 and project decision 4)', async () => {
  const app = await appWith({
    'index.ts': `export class Only extends Controller { GET() { return 'only'; } PUT() { return 'put'; } }
      export class Lower extends Controller { get() { return 'lower'; } }
      export class Any extends Controller { ANY() { return 'any'; } POST() { return 'post'; } }
      export class Head extends Controller { HEAD() { this.response.headers.set('x-head', '1'); } }`,
    'nodefault.ts': `export class Other extends Controller { GET() { return 'other'; } }`,
  });

  test('class found, method absent, no leftover segments → 501 with Allow', async () => {
    const reply = await call(app, '/only', { method: 'POST' });
    assert.equal(reply.status, 501);
    assert.equal(reply.json, 'POST /only not implemented');
    assert.equal(reply.headers.get('allow'), 'GET, PUT');
    assert.equal(reply.headers.get('content-type'), 'application/json; charset=utf-8');
  });

  test('method absent with leftover segments → 404', async () => {
    const reply = await call(app, '/only/bar', { method: 'DELETE' });
    assert.equal(reply.status, 404);
    assert.equal(reply.json, 'DELETE /only/bar not found');
  });

  test('no Default anywhere and nothing matches → 404; GET / without a root Default → 501', async () => {
    assert.equal((await call(app, '/missing')).json, 'GET /missing not found');
    assert.equal((await call(app, '/missing')).status, 404);
    const root = await call(app, '/');
    assert.equal(root.status, 501);
    assert.equal(root.json, 'GET / not implemented');
    assert.equal(root.headers.get('allow'), null);
  });

  test('HEAD and OPTIONS are 501 unless defined; HEAD runs when it is', async () => {
    assert.equal((await call(app, '/only', { method: 'HEAD' })).status, 501);
    assert.equal((await call(app, '/only', { method: 'OPTIONS' })).status, 501);
    const head = await call(app, '/head', { method: 'HEAD' });
    assert.equal(head.status, 204);
    assert.equal(head.headers.get('x-head'), '1');
  });

  test('a lower-case method name is not a handler (reference test_lowercase_method)', async () => {
    const reply = await call(app, '/lower');
    assert.equal(reply.status, 501);
    assert.equal(reply.json, 'GET /lower not implemented');
  });

  test('ANY answers every method without its own handler (reference test_any_1/2)', async () => {
    assert.equal((await call(app, '/any')).json, 'any');
    assert.equal((await call(app, '/any', { method: 'DELETE' })).json, 'any');
    assert.equal((await call(app, '/any', { method: 'POST' })).json, 'post');
    assert.equal((await call(app, '/any/extra')).status, 404);
  });

  test('a module without Default never falls back to a parent Default (v10)', async () => {
    assert.equal((await call(app, '/nodefault')).status, 501);
    assert.equal((await call(app, '/nodefault/zzz')).status, 404);
    assert.equal((await call(app, '/nodefault/other')).json, 'other');
  });

  test('HEAD can fall back to GET when asked to', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { GET() { return 'x'; } }`,
    });
    const fallback = await createApp({ controllerPrefix: dir, headFallback: true });
    const reply = await call(fallback, '/', { method: 'HEAD' });
    assert.equal(reply.status, 200);
    assert.equal(reply.text, '');
  });
});

describe('reference test_unsupported_method_404', async () => {
  const app = await appWith({
    'index.ts': `export class Default extends Controller { POST(foo) { return foo; } }`,
  });
  test('GET /foo/bar → 404, GET /foo → 404, GET / → 501', async () => {
    assert.equal((await call(app, '/foo/bar')).status, 404);
    assert.equal((await call(app, '/foo')).status, 404);
    assert.equal((await call(app, '/')).status, 501);
  });
});

describe('prefixes', () => {
  test('several prefixes merge into one tree and the later one wins', async () => {
    const first = writeControllers({
      'index.ts': `export class Default extends Controller { GET() { return 'first root'; } }
        export class Same extends Controller { GET() { return 'first'; } }`,
      'che.ts': `export class Default extends Controller { GET() { return 'first che'; } }`,
    });
    const second = writeControllers({
      'index.ts': `export class Same extends Controller { GET() { return 'second'; } }
        export class User extends Controller { GET() { return 'second user'; } }`,
    });
    const app = await createApp({ controllerPrefix: [first, second] });
    assert.equal((await call(app, '/')).json, 'first root');
    assert.equal((await call(app, '/same')).json, 'second');
    assert.equal((await call(app, '/user')).json, 'second user');
    assert.equal((await call(app, '/che')).json, 'first che');
  });

  test('APP_PREFIX lists, numbered APP_PREFIX_N, the ENDPOINTS_PREFIX alias and controller_prefix', async () => {
    const a = writeControllers({ 'index.ts': `export class A extends Controller { GET() { return 'a'; } }` });
    const b = writeControllers({ 'index.ts': `export class B extends Controller { GET() { return 'b'; } }` });
    const c = writeControllers({ 'index.ts': `export class C extends Controller { GET() { return 'c'; } }` });
    const apps = await Promise.all([
      createApp({ env: { APP_PREFIX: `${a}:${b}`, APP_PREFIX_1: c } }),
      createApp({ env: { ENDPOINTS_PREFIX: a, ENDPOINTS_PREFIX_1: b, ENDPOINTS_PREFIX_2: c } }),
      createApp({ controller_prefix: `${a}:${b}:${c}`, env: {} }),
    ]);
    for (const app of apps) {
      for (const name of ['a', 'b', 'c']) assert.equal((await call(app, `/${name}`)).json, name);
    }
    const onlyApp = await createApp({ env: { APP_PREFIX: a, ENDPOINTS_PREFIX: b } });
    assert.equal((await call(onlyApp, '/b')).status, 404, 'APP_PREFIX wins over its alias');
  });

  test('a relative prefix resolves against cwd, and a package specifier inside node_modules', async () => {
    const dir = writeControllers({
      'node_modules/@acme/api/controllers/index.ts': `export class Default extends Controller { GET() { return 'from package'; } }`,
      'local/index.ts': `export class Default extends Controller { GET() { return 'local'; } }`,
    });
    const fromPackage = await createApp({
      controllerPrefix: '@acme/api/controllers',
      cwd: join(dir, 'local'),
    });
    assert.equal((await call(fromPackage, '/')).json, 'from package');
    const relative = await createApp({ controllerPrefix: './local', cwd: dir });
    assert.equal((await call(relative, '/')).json, 'local');
  });

  test('a module file prefix is the root module', async () => {
    const dir = writeControllers({
      'controllers.ts': `export class User extends Controller { GET() { return 'user in controllers.ts'; } }`,
    });
    const app = await createApp({ controllerPrefix: join(dir, 'controllers.ts') });
    assert.equal((await call(app, '/user')).json, 'user in controllers.ts');
  });

  test('configuration errors are EndpointsErrors with codes', async () => {
    const missing = (code: string) => (error: unknown) =>
      error instanceof EndpointsError && error.code === code;
    await assert.rejects(createApp({ env: {} }), missing('NO_PREFIX'));
    await assert.rejects(createApp({ controllerPrefix: './nowhere', env: {} }), missing('PREFIX_NOT_FOUND'));
    await assert.rejects(
      createApp({ controllerPrefix: 'no-such-package/dir', env: {} }),
      missing('PREFIX_NOT_FOUND'),
    );
    await assert.rejects(
      createApp({ controllerPrefix: 'a', controller_prefix: 'b' }),
      missing('INVALID_OPTION'),
    );
    const dir = writeControllers({ 'index.ts': '' });
    await assert.rejects(createApp({ controllerPrefix: dir, bodyLimit: -1 }), missing('INVALID_OPTION'));
    await assert.rejects(
      createApp({ controllerPrefix: dir, env: { APP_REQUEST_TIMEOUT: 'soon' } }),
      missing('INVALID_OPTION'),
    );
  });
});

describe('discovery', () => {
  test('symlinks: a file linked from inside the prefix is mounted; one from outside, or a linked directory, is not', async () => {
    const outside = writeControllers({
      'away.ts': `export class Default extends Controller { GET() { return 'away'; } }`,
    });
    const dir = writeControllers({
      'real.ts': `export class Default extends Controller { GET() { return 'real'; } }`,
      'pkg/index.ts': `export class Default extends Controller { GET() { return 'pkg'; } }`,
    });
    symlinkSync(join(dir, 'real.ts'), join(dir, 'inside.ts'));
    symlinkSync(join(outside, 'away.ts'), join(dir, 'outside.ts'));
    symlinkSync(join(dir, 'pkg'), join(dir, 'linked'), 'dir');
    const app = await createApp({ controllerPrefix: dir, log: () => {} });
    assert.equal((await call(app, '/real')).json, 'real');
    assert.equal((await call(app, '/pkg')).json, 'pkg');
    assert.equal((await call(app, '/inside')).json, 'real');
    for (const path of ['/outside', '/linked']) assert.equal((await call(app, path)).status, 404, path);
  });

  test('an import error fails startup and names the file', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { GET() { return 1; } }`,
      'broken.ts': `import './does-not-exist.js';\nexport class Default extends Controller {}`,
    });
    await assert.rejects(createApp({ controllerPrefix: dir }), (error: unknown) => {
      assert.ok(error instanceof EndpointsError);
      assert.equal(error.code, 'CONTROLLER_IMPORT_FAILED');
      assert.match(error.message, /broken\.ts/);
      return true;
    });
  });

  test('a module that throws at load fails startup and names the file', async () => {
    const dir = writeControllers({ 'boom.ts': `throw new Error('kaboom');` });
    await assert.rejects(createApp({ controllerPrefix: dir }), /boom\.ts: kaboom/);
  });

  test('foo.ts and foo/index.ts together are a startup error', async () => {
    const dir = writeControllers({ 'foo.ts': '', 'foo/index.ts': '' });
    await assert.rejects(createApp({ controllerPrefix: dir }), (error: unknown) => {
      return (
        error instanceof EndpointsError && error.code === 'DUPLICATE_MODULE' && /foo\.ts/.test(error.message)
      );
    });
  });

  test('a class and a module answering the same path within one prefix is a startup error', async () => {
    const dir = writeControllers({
      'index.ts': `export class Foo extends Controller { GET() {} }`,
      'foo.ts': `export class Default extends Controller { GET() {} }`,
    });
    await assert.rejects(createApp({ controllerPrefix: dir }), (error: unknown) => {
      return error instanceof EndpointsError && error.code === 'DUPLICATE_ROUTE';
    });
  });

  test('handlers are inherited, and `static private` is not: a subclass of a private class is routable', async () => {
    const app = await appWith({
      'index.ts': `export class Base extends Controller { static private = true; GET() { return 'inherited GET'; } }
        export class Child extends Base { POST() { return 'own POST'; } }`,
    });
    assert.equal((await call(app, '/child')).json, 'inherited GET');
    assert.equal((await call(app, '/child', { method: 'POST' })).json, 'own POST');
    assert.equal((await call(app, '/base')).status, 404);
  });

  test('private files, test files, declaration files and node_modules are not mounted', async () => {
    const app = await appWith({
      'index.ts': `export class Default extends Controller { GET(...args) { return args; } }`,
      '_private.ts': `export class Default extends Controller { GET() { return 'private'; } }`,
      'thing.test.ts': `export class Default extends Controller { GET() { return 'test'; } }`,
      '_helpers/util.ts': `export class Default extends Controller { GET() { return 'helper'; } }`,
    });
    assert.deepEqual((await call(app, '/thing.test')).json, ['thing.test']);
    assert.deepEqual((await call(app, '/_private')).json, ['_private']);
    assert.deepEqual((await call(app, '/_helpers/util')).json, ['_helpers', 'util']);
  });

  test('only files under the prefix are mounted, even when a controller module imports one from outside', async () => {
    const outside = writeControllers({
      'two.ts': `export class Two extends Controller { GET() { return 'outside'; } }`,
    });
    const app = await appWith({
      'index.ts': `import { Two as _Two } from ${JSON.stringify(join(outside, 'two.ts'))};
        export class Default extends Controller { GET(...args) { return args; } }`,
    });
    assert.deepEqual((await call(app, '/two')).json, ['two']);
  });

  test('path traversal never reaches a module outside the prefix', async () => {
    const parent = writeControllers({
      'outside.ts': `export class Default extends Controller { GET() { return 'OUTSIDE'; } }`,
      'app/index.ts': `export class Default extends Controller { GET(...args) { return args; } }`,
    });
    const app = await createApp({ controllerPrefix: join(parent, 'app') });
    for (const target of [
      '/../outside',
      '/%2E%2E/outside',
      '/..%2Foutside',
      '/%2e%2e%2foutside',
      '/..\\outside',
    ]) {
      const reply = await call(app, target);
      assert.notEqual(reply.json, 'OUTSIDE', target);
      assert.equal(reply.status, 200, target);
    }
  });

  test('the routing tree is built once: a file added later is not served', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { GET(...a) { return a; } }`,
    });
    const app = await createApp({ controllerPrefix: dir });
    const late = join(dir, 'late.ts');
    mkdirSync(dirname(late), { recursive: true });
    writeFileSync(late, `export const nothing = 1;`);
    assert.deepEqual((await call(app, '/late')).json, ['late']);
  });
});
