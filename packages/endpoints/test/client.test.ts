import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { startCli } from './support/cli.js';
import { assertGoldenText } from './support/documents.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const bins = join(packageRoot, '..', '..', 'node_modules', '.bin');
const run = (command: string, args: string[], cwd: string) =>
  promisify(execFile)(command, args, { cwd, timeout: 240_000 }).catch(
    (error: { stdout: string; stderr: string }) => {
      throw new Error(`${command} ${args.join(' ')} failed:\n${error.stdout}${error.stderr}`);
    },
  );

mkdirSync(join(packageRoot, '.tmp'), { recursive: true });
// Inside the package, so the consumer resolves openapi-fetch and ws from the workspace's node_modules.
const dir = mkdtempSync(join(packageRoot, '.tmp', 'emitted-client-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A consumer of the emitted client: HTTP through openapi-fetch, WebSocket through `ws`. The
 * `@ts-expect-error` lines prove the types are real: tsc fails if any of those calls type-checks.
 */
const CONSUMER = `import WebSocket from 'ws';
import { connectSocket, createHttpClient, SocketError } from './client.js';

const base = process.argv[2] as string;
const http = createHttpClient({ baseUrl: base });

const created = await http.postUsers({ body: { name: 'Lin' } });
const id: number = created.data?.id ?? 0;
const one = await http.getUsersById({ params: { path: { id } } });
const viaHttp = await http.postChat({ body: { text: 'over http' } });
const sentAt: string | undefined = viaHttp.data?.at;
const missingOverHttp = await http.getUsersById({ params: { path: { id: 999 } } });
const missingMessage: string | undefined = missingOverHttp.error;
const viaRaw = await http.raw.GET('/users/{id}', { params: { path: { id } } });

const socket = connectSocket(\`\${base.replace('http', 'ws')}/chat\`, { WebSocket, reconnect: { attempts: 0 } });
await socket.ready;
const posted = await socket.send.postChat({ body: { text: 'over ws' } });
const postedText: string = posted.text;
const listed = await socket.send.getChat({ params: { query: { since: 1 } } });
const user = await socket.send.getUsersById({ params: { path: { id } } });
const root: string = await socket.send.getRoot();
let missing: unknown;
try {
  await socket.send.getUsersById({ params: { path: { id: 999 } } });
} catch (error) {
  missing = error instanceof SocketError ? [error.code, error.body] : String(error);
}
socket.close();

if (process.argv[3] === 'never') {
  // @ts-expect-error the id is a number
  await http.getUsersById({ params: { path: { id: 'one' } } });
  // @ts-expect-error text is required in the body
  await http.postChat({ body: {} });
  // @ts-expect-error getUsersById needs its path parameters
  await http.getUsersById();
  // @ts-expect-error there is no such operation
  await http.nope();
  // @ts-expect-error the raw client's id is a number too
  await http.raw.GET('/users/{id}', { params: { path: { id: 'one' } } });
  // @ts-expect-error the WebSocket payload's text is a string
  await socket.send.postChat({ body: { text: 42 } });
  // @ts-expect-error the WebSocket payload needs its text
  await socket.send.postChat({ body: {} });
  // @ts-expect-error getUsersById needs its path parameters
  await socket.send.getUsersById({});
  // @ts-expect-error there is no such operation
  await socket.send.nope();
}

console.log(JSON.stringify({
  created: [created.response.status, created.data],
  one: [one.response.status, one.data],
  viaHttp: [viaHttp.response.status, typeof sentAt],
  missingOverHttp: [missingOverHttp.response.status, missingMessage],
  viaRaw: [viaRaw.response.status, viaRaw.data],
  posted: [postedText, posted.id],
  listed: listed.map((message) => message.text),
  user,
  root,
  missing,
}));
`;

test('endpoints client: the emitted module compiles alone, and a consumer calls the example app over HTTP and WebSocket', async () => {
  const client = join(dir, 'client.ts');
  await run(
    join(bins, 'tsx'),
    [
      join(packageRoot, 'bin', 'endpoints.ts'),
      'client',
      '--prefix',
      'examples/controllers',
      '--project',
      'tsconfig.json',
      '--out',
      client,
    ],
    packageRoot,
  );
  // The emitted module as a reader sees it: its declarations, methods and runtime.
  assertGoldenText(readFileSync(client, 'utf8'), 'example-app.client.ts.txt');
  assert.doesNotMatch(
    readFileSync(client, 'utf8'),
    /from '\.\.?\//,
    'the module imports nothing of the server',
  );
  writeFileSync(join(dir, 'consumer.ts'), CONSUMER);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  const compilerOptions = {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    types: ['node'],
    noEmit: true,
  };
  // The emitted module alone, checked: without its @ts-nocheck line, which spares consumers the check.
  const emitted = readFileSync(client, 'utf8');
  assert.match(emitted, /^\/\/ @ts-nocheck$/m);
  writeFileSync(join(dir, 'client.checked.ts'), emitted.replace(/^\/\/ @ts-nocheck\n/m, ''));
  writeFileSync(
    join(dir, 'tsconfig.client.json'),
    JSON.stringify({ compilerOptions, files: ['client.checked.ts'] }),
  );
  await run(join(bins, 'tsc'), ['--noEmit', '-p', join(dir, 'tsconfig.client.json')], dir);
  // Then the consumer, with the module as emitted.
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['consumer.ts'] }));
  await run(join(bins, 'tsc'), ['--noEmit', '-p', dir], dir);

  const server = await startCli(join(packageRoot, 'examples', 'controllers'));
  try {
    const { stdout } = await run(join(bins, 'tsx'), [join(dir, 'consumer.ts'), server.base], dir);
    const results = JSON.parse(stdout) as Record<string, unknown>;
    assert.deepEqual(results.created, [201, { id: 3, name: 'Lin' }]);
    assert.deepEqual(results.one, [200, { id: 3, name: 'Lin' }]);
    assert.deepEqual(results.viaHttp, [201, 'string']);
    assert.deepEqual(results.missingOverHttp, [404, 'user 999 does not exist']);
    assert.deepEqual(results.viaRaw, [200, { id: 3, name: 'Lin' }]);
    assert.deepEqual(results.posted, ['over ws', 2]);
    assert.deepEqual(results.listed, ['over ws']);
    assert.deepEqual(results.user, { id: 3, name: 'Lin' });
    assert.equal(results.root, 'Default handler');
    assert.deepEqual(results.missing, [404, 'user 999 does not exist']);
  } finally {
    await server.child.stop();
  }
});
