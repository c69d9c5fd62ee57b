import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ManagedProcess, spawnManaged } from '@platform/testkit';
import { writeControllers } from './support/controllers.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
const bin = join(packageRoot, 'bin', 'endpoints.ts');
const LISTENING = /endpoints listening on (http:\/\/127\.0\.0\.1:(\d+))/g;

/**
 * Polls the process output until it has printed `count` listening lines; returns the last address.
 * Generous, as up to nine of these processes start at once on a shared machine.
 */
async function listeningAt(child: ManagedProcess, count = 1, timeoutMs = 60_000): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const matches = [...child.output().matchAll(LISTENING)];
    if (matches.length >= count) return (matches.at(-1) as RegExpMatchArray)[1] as string;
    await delay(50);
  }
  throw new Error(`the CLI did not report listening:\n${child.output()}`);
}

/** Waits for the server a child process starts, answers `GET /` with it, and stops the child. */
async function answerOfRoot(child: ManagedProcess): Promise<unknown> {
  try {
    return await (await fetch(`${await listeningAt(child)}/`)).json();
  } finally {
    await child.stop();
  }
}

// Generous: the compiled-build test runs tsc, which took over 30 s of wall time on the shared machine
// at load average 27 (4 s of CPU).
function runToExit(command: string, args: string[]) {
  return promisify(execFile)(command, args, { timeout: 180_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

// Each case runs its own processes on port 0 over its own controllers, so the cases run at once.
describe('the endpoints CLI, as a process', { concurrency: true }, () => {
  test('serves the example app: the spec README calls, port 0 printed', async () => {
    const child = spawnManaged(tsx, [
      bin,
      '--prefix',
      join(packageRoot, 'examples', 'controllers'),
      '--host',
      '127.0.0.1:0',
    ]);
    try {
      const base = await listeningAt(child);
      assert.equal(await (await fetch(`${base}/`)).json(), 'Default handler');
      assert.equal(await (await fetch(`${base}/foo`)).json(), 'Foo handler');
      const posted = await fetch(`${base}/`, {
        method: 'POST',
        body: new URLSearchParams({ name: 'Awesome you' }),
      });
      assert.equal(await posted.json(), 'hello Awesome you');
    } finally {
      await child.stop();
    }
  });

  test('--prefix is repeatable and the later prefix wins', async () => {
    const first = writeControllers({
      'index.ts': `export class Same extends Controller { GET() { return 'first'; } }
      export class One extends Controller { GET() { return 'one'; } }`,
    });
    const second = writeControllers({
      'index.ts': `export class Same extends Controller { GET() { return 'second'; } }`,
    });
    const child = spawnManaged(tsx, [bin, '-P', first, '--prefix', second, '-H', '127.0.0.1:0']);
    try {
      const base = await listeningAt(child);
      assert.equal(await (await fetch(`${base}/same`)).json(), 'second');
      assert.equal(await (await fetch(`${base}/one`)).json(), 'one');
    } finally {
      await child.stop();
    }
  });

  test('configuration errors exit with status 2 and say what is wrong', async () => {
    const broken = writeControllers({ 'broken.ts': `throw new Error('cannot start');` });
    const [badHost, unknown, failed, help] = await Promise.all([
      runToExit(tsx, [bin, '--prefix', '.', '--host', '127.0.0.1:99999']),
      runToExit(tsx, [bin, '--nope']),
      runToExit(tsx, [bin, '--prefix', broken, '--host', '127.0.0.1:0']),
      runToExit(tsx, [bin, '--help']),
    ]);
    assert.equal(badHost.code, 2);
    assert.match(badHost.stderr, /--host must look like 127\.0\.0\.1:8000/);
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown option '--nope'/);
    assert.equal(failed.code, 2);
    assert.match(failed.stderr, /broken\.ts: cannot start/);
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Usage: endpoints/);
  });

  test('--reload restarts the server when a controller file changes', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { GET() { return 'before'; } }`,
    });
    const child = spawnManaged(tsx, [bin, '--prefix', dir, '--host', '127.0.0.1:0', '--reload']);
    try {
      const base = await listeningAt(child);
      assert.equal(await (await fetch(`${base}/`)).json(), 'before');
      const source = `import { Controller } from ${JSON.stringify(join(packageRoot, 'src', 'index.js'))};
        export class Default extends Controller { GET() { return 'after'; } }`;
      writeFileSync(join(dir, 'index.ts'), source);
      const restarted = await listeningAt(child, 2);
      assert.match(child.output(), /changed, restarting/);
      assert.equal(await (await fetch(`${restarted}/`)).json(), 'after');
    } finally {
      await child.stop();
    }
  });

  test('--reload: the server does not outlive a supervisor that is killed outright', async () => {
    const dir = writeControllers({
      'index.ts': `export class Default extends Controller { GET() { return 1; } }`,
    });
    // node itself, not the tsx CLI, so the SIGKILL below reaches the supervisor and not a wrapper.
    const supervisor = ['--import', 'tsx', bin, '--prefix', dir, '--host', '127.0.0.1:0', '--reload'];
    const child = spawnManaged(process.execPath, supervisor);
    try {
      const base = await listeningAt(child);
      assert.equal(await (await fetch(base)).json(), 1);
      process.kill(child.pid, 'SIGKILL');
      const deadline = Date.now() + 10_000;
      let stopped = false;
      while (!stopped && Date.now() < deadline) {
        stopped = await fetch(base).then(
          () => false,
          () => true,
        );
        if (!stopped) await delay(100);
      }
      assert.ok(stopped, 'the server kept answering after its supervisor died');
    } finally {
      await child.stop();
    }
  });

  test('compiled: production loads JavaScript controllers; development registers tsx for TypeScript ones', async () => {
    const out = writeControllers({}, { header: false });
    const tsc = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsc');
    // --noCheck emits the same files as `npm run build` (the same emitter, without the type check,
    // which `npm run typecheck` does) in about half the time.
    const build = await runToExit(tsc, [
      '-p',
      join(packageRoot, 'tsconfig.build.json'),
      '--outDir',
      out,
      '--noCheck',
    ]);
    assert.equal(build.code, 0, build.stdout + build.stderr);
    const compiledIndex = JSON.stringify(join(out, 'src', 'index.js'));
    const compiledBin = join(out, 'bin', 'endpoints.js');
    const jsControllers = writeControllers(
      {
        'index.js': `import { Controller } from ${compiledIndex};\nexport class Default extends Controller { GET() { return 'compiled'; } }`,
      },
      { header: false },
    );
    const tsControllers = writeControllers(
      {
        'index.ts': `import { Controller } from ${compiledIndex};\nexport class Default extends Controller { GET(): string { return 'typescript'; } }`,
      },
      { header: false },
    );
    // Without "type": "module", tsx treats a .ts controller as CommonJS; the ESM hook alone failed
    // with "Cannot require() ES Module … in a cycle".
    const commonJsProject = writeControllers(
      {
        'package.json': '{ "name": "commonjs-project" }\n',
        'controllers/index.ts': `import { Controller } from ${compiledIndex};\nexport class Default extends Controller { GET(): string { return 'commonjs'; } }`,
      },
      { header: false },
    );
    // The four runs of the built command are independent: they start at once.
    const serve = (args: string[]) => answerOfRoot(spawnManaged(process.execPath, [compiledBin, ...args]));
    const [production, development, commonJs, refused] = await Promise.all([
      serve(['--production', '--prefix', jsControllers, '-H', ':0']),
      serve(['--prefix', tsControllers, '-H', ':0']),
      serve(['--prefix', join(commonJsProject, 'controllers'), '-H', ':0']),
      runToExit(process.execPath, [compiledBin, '--production', '--prefix', tsControllers]),
    ]);
    assert.equal(production, 'compiled');
    assert.equal(development, 'typescript');
    assert.equal(commonJs, 'commonjs');
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /index\.ts.*compile them to \.js/);
  });
});
