// The `endpoints` command as a user meets it: through the bin launcher that `npx endpoints` runs.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { assertOneLineError, freePort, occupyPort, runCommand, spawnManaged } from '@platform/testkit';
import { writeControllers } from './support/controllers.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const launcher = join(packageRoot, 'bin', 'endpoints.mjs');
const examples = join(packageRoot, 'examples', 'controllers');
const endpoints = (args: string[]) => runCommand(process.execPath, [launcher, ...args]);

describe('help and arguments', () => {
  test('-h and --help print the usage to stdout and exit 0', async () => {
    for (const flag of ['-h', '--help']) {
      const result = await endpoints([flag]);
      assert.equal(result.code, 0, result.stderr);
      assert.match(result.stdout, /^Usage: endpoints \[command\] \[options\]\n\nCommands:\n {2}serve /);
      assert.match(result.stdout, /--prefix <path>/);
    }
    const serveHelp = await endpoints(['serve', '--help']);
    assert.equal(serveHelp.code, 0);
    assert.match(serveHelp.stdout, /^Usage: endpoints \[serve\]/);
  });

  test('usage errors: one line pointing at --help, exit 2', async () => {
    assertOneLineError(
      await endpoints(['--nope']),
      2,
      /^endpoints: Unknown option '--nope' \(see endpoints --help\)$/,
    );
    assertOneLineError(
      await endpoints(['frobnicate']),
      2,
      /^endpoints: unknown command 'frobnicate' \(commands: serve, openapi, asyncapi, client, routes\) \(see endpoints --help\)$/,
    );
    assertOneLineError(
      await endpoints(['serve', 'stray']),
      2,
      /^endpoints: Unexpected argument 'stray' \(see endpoints --help\)$/,
    );
  });

  test('`endpoints --prefix x` still means `endpoints serve --prefix x`', async () => {
    const child = spawnManaged(process.execPath, [launcher, '--prefix', examples, '-H', '127.0.0.1:0']);
    try {
      const deadline = Date.now() + 30_000;
      while (!/listening on http/.test(child.output()) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.match(child.output(), /endpoints listening on http:\/\/127\.0\.0\.1:\d+/);
    } finally {
      await child.stop();
    }
  });
});

describe('startup errors: one line naming the value, the problem and the flag, exit 2', () => {
  test('port in use', async () => {
    const busy = await occupyPort();
    try {
      assertOneLineError(
        await endpoints(['--prefix', examples, '--host', `127.0.0.1:${busy.port}`]),
        2,
        new RegExp(
          `^endpoints: cannot listen on 127\\.0\\.0\\.1:${busy.port}: address already in use; pass --host with a free port`,
        ),
      );
    } finally {
      await busy.release();
    }
  });

  test('a host that is not an address of this machine, and a malformed one', async () => {
    assertOneLineError(
      await endpoints(['--prefix', examples, '--host', '192.0.2.1:0']),
      2,
      /^endpoints: cannot listen on 192\.0\.2\.1:0: address not available on this machine; pass --host/,
    );
    assertOneLineError(
      await endpoints(['--prefix', examples, '--host', '127.0.0.1:99999']),
      2,
      /^endpoints: --host must look like 127\.0\.0\.1:8000, got '127\.0\.0\.1:99999' \(see endpoints --help\)$/,
    );
  });

  test('a missing controller directory', async () => {
    assertOneLineError(
      await endpoints(['--prefix', '/nonexistent-controllers']),
      2,
      /^endpoints: controller prefix '\/nonexistent-controllers' does not exist.*; pass --prefix/,
    );
  });
});

describe('TypeScript controllers in a project without "type": "module"', () => {
  test('load and answer, through the launcher', async () => {
    const project = writeControllers(
      {
        'package.json': '{ "name": "commonjs-project" }\n',
        'controllers/index.ts': `import { Controller } from ${JSON.stringify(join(packageRoot, 'src', 'index.js'))};
export class Default extends Controller { GET(): string { return 'from a CommonJS package'; } }\n`,
      },
      { header: false },
    );
    const child = spawnManaged(process.execPath, [
      launcher,
      '--prefix',
      join(project, 'controllers'),
      '-H',
      '127.0.0.1:0',
    ]);
    try {
      const deadline = Date.now() + 30_000;
      let match: RegExpMatchArray | null = null;
      while (!match && Date.now() < deadline) {
        match = /listening on (http:\/\/\S+)/.exec(child.output());
        if (!match) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.ok(match, child.output());
      assert.equal(await (await fetch(`${match[1]}/`)).json(), 'from a CommonJS package');
    } finally {
      await child.stop();
    }
  });
});

describe('the README commands for newcomers', () => {
  test('factory mode with TypeScript controllers, as written: srvx --import tsx', async () => {
    const port = await freePort();
    const srvx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'srvx');
    const child = spawnManaged('env', [
      `APP_PREFIX=${examples}`,
      srvx,
      'serve',
      '--import',
      'tsx',
      '--entry',
      join(packageRoot, '..', '..', 'node_modules', '@platform', 'endpoints', 'src', 'factory.ts'),
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
    ]);
    try {
      const deadline = Date.now() + 60_000;
      let answer: unknown;
      while (answer === undefined && Date.now() < deadline) {
        answer = await fetch(`http://127.0.0.1:${port}/foo`).then(
          (response) => response.json(),
          () => undefined,
        );
        if (answer === undefined) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      assert.equal(answer, 'Foo handler', child.output());
    } finally {
      await child.stop();
    }
  });

  test('a controller importing an unbuilt @platform/endpoints is told how to build it', async () => {
    const unbuilt = join(packageRoot, '.tmp', 'unbuilt', 'endpoints', 'dist', 'src', 'index.js');
    const dir = writeControllers(
      { 'index.ts': `export { Controller } from ${JSON.stringify(unbuilt)};\n` },
      { header: false },
    );
    assertOneLineError(
      await endpoints(['--prefix', dir, '--host', '127.0.0.1:0']),
      2,
      /^endpoints: cannot import controller module .*index\.ts: .*\(@platform\/endpoints is not built: run `npm run build -w packages\/endpoints` at the repository root\)$/,
    );
  });
});
