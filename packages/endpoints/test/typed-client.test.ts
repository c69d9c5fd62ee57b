import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { spawnManaged } from '@platform/testkit';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const bins = join(packageRoot, '..', '..', 'node_modules', '.bin');
const run = (command: string, args: string[], cwd: string) =>
  promisify(execFile)(command, args, { cwd, timeout: 120_000 }).catch(
    (error: { stdout: string; stderr: string }) => {
      throw new Error(`${command} ${args.join(' ')} failed:\n${error.stdout}${error.stderr}`);
    },
  );

mkdirSync(join(packageRoot, '.tmp'), { recursive: true });
// Inside the package, so the client resolves openapi-fetch from the workspace's node_modules.
const dir = mkdtempSync(join(packageRoot, '.tmp', 'typed-client-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A client of the example app, typed by openapi-typescript from the generated document. The
 * `@ts-expect-error` lines prove the types are real: tsc fails if any of those calls type-checks.
 */
const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const client = createClient<paths>({ baseUrl: process.argv[2] });

const created = await client.POST('/users', { body: { name: 'Lin' } });
const id = (created.data as { id: number }).id;
const one = await client.GET('/users/{id}', { params: { path: { id } } });
const listed = await client.GET('/users', { params: { query: { limit: 1 } } });
const removed = await client.DELETE('/users/{id}', { params: { path: { id } } });
const missing = await client.GET('/users/{id}', { params: { path: { id } } });
const missingMessage: string | undefined = missing.error;
const greeted = await client.POST('/', { body: { name: 'typed you' } });
const status = await client.GET('/api/status/{field}', { params: { path: { field: 'ok' } } });

if (process.argv[3] === 'never') {
  // @ts-expect-error the id is a number
  await client.GET('/users/{id}', { params: { path: { id: 'one' } } });
  // @ts-expect-error name is required
  await client.POST('/users', { body: {} });
  // @ts-expect-error limit is a number
  await client.GET('/users', { params: { query: { limit: 'all' } } });
  // @ts-expect-error there is no such path
  await client.GET('/nope');
  // @ts-expect-error PUT is not a method of /users
  await client.PUT('/users', {});
}

console.log(JSON.stringify({
  created: [created.response.status, created.data],
  one: [one.response.status, one.data],
  listed: [listed.response.status, listed.data],
  removed: [removed.response.status, removed.data ?? null],
  missing: [missing.response.status, missingMessage],
  greeted: [greeted.response.status, greeted.data],
  status: [status.response.status, status.data],
}));
`;

test('openapi-typescript and openapi-fetch: a client compiled by tsc calls the running example app', async () => {
  const document = join(dir, 'openapi.json');
  // The two commands the README shows.
  await run(
    join(bins, 'tsx'),
    [
      join(packageRoot, 'bin', 'endpoints.ts'),
      'openapi',
      '--prefix',
      'examples/controllers',
      '--out',
      document,
    ],
    packageRoot,
  );
  await run(join(bins, 'openapi-typescript'), [document, '-o', join(dir, 'api.d.ts')], dir);

  writeFileSync(join(dir, 'client.ts'), CLIENT);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        strict: true,
        skipLibCheck: true,
        types: ['node'],
        outDir: 'out',
      },
      files: ['client.ts'],
    }),
  );
  await run(join(bins, 'tsc'), ['-p', dir], dir);

  const server = spawnManaged(join(bins, 'tsx'), [
    join(packageRoot, 'bin', 'endpoints.ts'),
    '--prefix',
    join(packageRoot, 'examples', 'controllers'),
    '--host',
    '127.0.0.1:0',
  ]);
  try {
    let base: string | undefined;
    for (let waited = 0; !base && waited < 20_000; waited += 50) {
      base = /endpoints listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(server.output())?.[1];
      if (!base) await delay(50);
    }
    assert.ok(base, server.output());
    const { stdout } = await run(process.execPath, [join(dir, 'out', 'client.js'), base], dir);
    const results = JSON.parse(stdout) as Record<string, [number, unknown]>;
    assert.deepEqual(results.created, [201, { id: 3, name: 'Lin' }]);
    assert.deepEqual(results.one, [200, { id: 3, name: 'Lin' }]);
    assert.deepEqual(results.listed, [200, [{ id: 1, name: 'Ada' }]]);
    assert.deepEqual(results.removed, [204, null]);
    assert.deepEqual(results.missing, [404, 'user 3 does not exist']);
    assert.deepEqual(results.greeted, [200, 'hello typed you']);
    assert.deepEqual(results.status, [200, { ok: true }]);
  } finally {
    await server.stop();
  }
});
