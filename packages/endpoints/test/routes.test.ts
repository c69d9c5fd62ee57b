import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ManagedProcess, spawnManaged } from '@platform/testkit';
import { createApp, EndpointsError, type RouteTable, surveyRoutes } from '../src/index.js';
import { writeControllers } from './support/controllers.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
const bin = join(packageRoot, 'bin', 'endpoints.ts');

function runCli(args: string[]) {
  return promisify(execFile)(tsx, [bin, ...args], { timeout: 60_000, cwd: packageRoot }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/** A prefix with one mounted route and every kind of file or export that is not mounted. */
function treeWithEverySkip(): string {
  const dir = writeControllers({
    'index.ts': `export class Default extends Controller { GET(id, { verbose = false } = {}) { return id; } }
      export class _Helper extends Controller { GET() {} }
      export class BaseController extends Controller { GET() {} }
      export class Switched extends Controller { static private = true; GET() {} }
      export class Plain { GET() {} }
      export const notAClass = 1;
      class Internal extends Controller { GET() {} }
      void Internal;`,
    'broken.ts': `throw new Error('cannot load this one');`,
    'dup.ts': `export class Default extends Controller { GET() {} }`,
    'dup/index.ts': `export class Default extends Controller { GET() {} }`,
    'area.ts': `export class Items extends Controller { GET() {} }`,
    'area/items.ts': `export class Default extends Controller { GET() {} }`,
    '_private.ts': `export class Default extends Controller { GET() {} }`,
    'helper.test.ts': `export {};`,
    'types.d.ts': `export {};`,
    '.hidden.ts': `export {};`,
    'node_modules/pkg/index.js': `export {};`,
  });
  writeFileSync(join(dir, 'notes.md'), '# not a module\n');
  const outside = writeControllers({
    'elsewhere.ts': `export class Default extends Controller { GET() {} }`,
  });
  symlinkSync(join(outside, 'elsewhere.ts'), join(dir, 'linked.ts'));
  return dir;
}

function reasons(table: RouteTable, dir: string) {
  return table.skipped.map((entry) => ({
    file: relative(dir, join(packageRoot, entry.file)),
    name: entry.name,
    reason: entry.reason,
  }));
}

describe('the route table', () => {
  test('lists every route and every file or export not mounted, with the reason', async () => {
    const dir = treeWithEverySkip();
    const table = await surveyRoutes({ controllerPrefix: dir, cwd: packageRoot });
    assert.deepEqual(
      table.routes.map((route) => [route.method, route.path, route.class]),
      [
        ['GET', '/{id}', 'Default'],
        ['GET', '/area/items', 'Items'],
        ['GET', '/dup', 'Default'],
      ],
    );
    assert.deepEqual(table.routes[0]?.parameters, [
      { name: 'id', in: 'path', type: 'string', required: true },
      { name: 'verbose', in: 'query', type: 'any', required: false, default: false },
    ]);
    const found = reasons(table, dir);
    const expect = (file: string, reason: string, name?: string) =>
      assert.ok(
        found.some((entry) => entry.file === file && entry.reason === reason && entry.name === name),
        `${file}${name ? `#${name}` : ''}: ${reason} in ${JSON.stringify(found, null, 1)}`,
      );
    expect('_private.ts', 'ignored file pattern');
    expect('helper.test.ts', 'ignored file pattern');
    expect('types.d.ts', 'ignored file pattern');
    expect('.hidden.ts', 'ignored file pattern');
    expect('node_modules', 'ignored file pattern');
    expect('notes.md', 'ignored file pattern');
    expect('linked.ts', 'outside the prefix');
    expect('dup.ts', 'duplicate module');
    expect('broken.ts', 'import error');
    expect('index.ts', 'private name', '_Helper');
    expect('index.ts', 'private name', 'BaseController');
    expect('index.ts', 'private name', 'Switched');
    expect('index.ts', 'not a Controller subclass', 'Plain');
    expect('index.ts', 'not exported', 'Internal');
    expect('area/items.ts', 'duplicate route', 'Default');
    assert.match(
      table.skipped.find((entry) => entry.reason === 'import error')?.detail ?? '',
      /cannot load this one/,
    );
    assert.ok(!found.some((entry) => entry.name === 'notAClass'), 'plain values are not listed');
    assert.ok(!found.some((entry) => entry.file.startsWith('node_modules/')), 'node_modules is not walked');
  });

  test('createApp still fails on what the survey only reports', async () => {
    const dir = treeWithEverySkip();
    await assert.rejects(
      createApp({ controllerPrefix: dir, log: () => {} }),
      (error) => error instanceof EndpointsError,
    );
  });

  test('app.routeTable() finds unexported classes when asked, without debug', async () => {
    const dir = writeControllers({
      'index.ts': `class Internal extends Controller { GET() {} }
        export class Shown extends Controller { GET() { return new Internal(this.request, this.response); } }`,
    });
    const app = await createApp({ controllerPrefix: dir, log: () => {} });
    assert.deepEqual(
      app.routeTable().skipped.map((entry) => [entry.name, entry.reason]),
      [['Internal', 'not exported']],
    );
    assert.equal(app.skipped.length, 1);
  });

  test('a later prefix replacing a route is reported as a duplicate route', async () => {
    const first = writeControllers({ 'index.ts': `export class Same extends Controller { GET() {} }` });
    const second = writeControllers({ 'index.ts': `export class Same extends Controller { POST() {} }` });
    const app = await createApp({ controllerPrefix: [first, second], cwd: packageRoot, log: () => {} });
    const table = app.routeTable();
    assert.deepEqual(
      table.routes.map((route) => route.method),
      ['POST'],
    );
    assert.equal(table.skipped[0]?.reason, 'duplicate route');
    assert.match(table.skipped[0]?.detail ?? '', /replaced by .*#Same from a later prefix/);
  });

  test('endpoints routes prints the table; --json is machine-readable', async () => {
    const dir = treeWithEverySkip();
    const text = await runCli(['routes', '--prefix', dir]);
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^Routes \(3\):\nMETHOD\s+PATH\s+CLASS\s+FILE\s+PARAMETERS\n/);
    assert.match(
      text.stdout,
      /GET\s+\/\{id\}\s+Default\s+\S*index\.ts\s+id: string \(path\), verbose\?: any = false \(query\)/,
    );
    assert.match(text.stdout, /Not mounted \(\d+\):/);
    assert.match(text.stdout, /broken\.ts\s+-\s+import error\s+.*cannot load this one/);
    const json = await runCli(['routes', '--prefix', dir, '--json']);
    assert.equal(json.code, 0, json.stderr);
    const table = JSON.parse(json.stdout) as RouteTable;
    assert.equal(table.routes.length, 3);
    assert.ok(table.skipped.some((entry) => entry.reason === 'not exported' && entry.name === 'Internal'));
    const bad = await runCli(['routes', '--nope']);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /Unknown option '--nope'/);
  });

  test('endpoints openapi writes the document with --out', async () => {
    const out = join(writeControllers({}), 'openapi.json');
    const result = await runCli([
      'openapi',
      '--prefix',
      'examples/controllers',
      '--title',
      'endpoints example app',
      '--api-version',
      '1.0.0',
      '--out',
      out,
    ]);
    assert.equal(result.code, 0, result.stderr);
    const golden = readFileSync(join(packageRoot, 'test', 'golden', 'example-app.openapi.json'), 'utf8');
    assert.deepEqual(JSON.parse(readFileSync(out, 'utf8')), JSON.parse(golden));
    const printed = await runCli([
      'openapi',
      '--prefix',
      'examples/controllers',
      '--server',
      'http://127.0.0.1:1',
    ]);
    assert.deepEqual((JSON.parse(printed.stdout) as { servers: unknown }).servers, [
      { url: 'http://127.0.0.1:1' },
    ]);
  });

  test('--debug logs the route table at startup; --openapi serves the document', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { GET() { return 'hi'; } }
        export class _Hidden extends Controller { GET() {} }`,
    });
    mkdirSync(join(dir, 'empty'));
    const child: ManagedProcess = spawnManaged(tsx, [
      bin,
      '--prefix',
      dir,
      '--host',
      '127.0.0.1:0',
      '--debug',
      '--openapi',
      '/openapi.json',
    ]);
    try {
      let base: string | undefined;
      for (let waited = 0; !base && waited < 20_000; waited += 50) {
        base = /endpoints listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(child.output())?.[1];
        if (!base) await delay(50);
      }
      assert.ok(base, child.output());
      assert.match(child.output(), /Routes \(1\):[\s\S]*GET\s+\/\s+Default/);
      assert.match(child.output(), /_Hidden\s+private name/);
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as { paths: object };
      assert.deepEqual(Object.keys(document.paths), ['/']);
    } finally {
      await child.stop();
    }
  });
});
