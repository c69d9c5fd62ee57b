import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { setTimeout as delay } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { ManagedProcess } from '@platform/testkit';
import WebSocket from 'ws';
import { type CliServer, startCli } from './support/cli.js';
import { Client } from './support/sockets.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
// What `npx endpoints` runs in a checkout.
const bin = join(packageRoot, 'bin', 'endpoints.mjs');
const fixture = join(packageRoot, 'test', 'fixtures', 'validated');
const project = join(fixture, 'tsconfig.json');

/** `endpoints serve` over the validated fixture with `flags`; its address once it listens. */
function serve(flags: string[]): Promise<CliServer> {
  // Generous: the TypeScript program is built at startup, on a machine shared by several agents.
  return startCli(fixture, { flags, timeoutMs: 90_000 });
}

/** The output's lines that match `pattern`, once the process has had a moment to write them. */
async function linesMatching(child: ManagedProcess, pattern: RegExp, count: number): Promise<string[]> {
  const deadline = Date.now() + 5000;
  let lines: string[] = [];
  while (Date.now() < deadline) {
    lines = child
      .output()
      .split('\n')
      .filter((line) => pattern.test(line));
    if (lines.length >= count) break;
    await delay(20);
  }
  return lines;
}

// Each case runs its own process on port 0, so they run at once.
describe('endpoints serve --project with validation, as a process', { concurrency: true }, () => {
  test('--response-validation strict and --message-validation: a 500 over HTTP, a 400 frame over ws with the socket kept open', async () => {
    const { base, child } = await serve([
      '--project',
      project,
      '--response-validation',
      'strict',
      '--message-validation',
    ]);
    try {
      const good = await fetch(`${base}/items`);
      assert.equal(good.status, 200);
      assert.deepEqual(await good.json(), [{ id: 7, name: 'x' }]);
      const bad = await fetch(`${base}/items?broken=true`, { headers: { 'x-request-id': 'cli-7' } });
      assert.equal(bad.status, 500);
      assert.equal(await bad.json(), 'the response does not match its schema at /0/id: must be number');
      assert.equal(bad.headers.get('x-request-id'), 'cli-7');
      assert.deepEqual(await linesMatching(child, /request cli-7:/, 1), [
        "endpoints: request cli-7: the 200 response of GET /items does not match the handler's return type at /0/id: must be number",
      ]);

      const client = new Client(`${base.replace('http', 'ws')}/items`);
      assert.equal((await client.next()).code, 200, 'CONNECT answered');
      const refused = await client.send({
        path: '/items',
        method: 'POST',
        uuid: 'bad',
        body: { item: { id: 'x', name: 'n' } },
      });
      assert.deepEqual(refused, {
        path: '/items',
        uuid: 'bad',
        code: 400,
        body: "the frame's body does not match its schema at /item/id: must be number",
      });
      assert.equal(client.socket.readyState, WebSocket.OPEN, 'the socket stays open');
      // Strict holds over the socket too: a reply that breaks its type is a 500 frame, logged with
      // the id the frame's headers give.
      const broken = await client.send({
        path: '/items?broken=true',
        method: 'GET',
        uuid: 'strict',
        headers: { 'x-request-id': 'ws-7' },
      });
      assert.deepEqual(broken, {
        path: '/items?broken=true',
        uuid: 'strict',
        code: 500,
        body: 'the response does not match its schema at /0/id: must be number',
      });
      assert.equal((await linesMatching(child, /request ws-7:/, 1)).length, 1);
      const accepted = await client.send({
        path: '/items',
        method: 'POST',
        uuid: 'good',
        body: { item: { id: 1, name: 'n' } },
      });
      assert.deepEqual(accepted, { path: '/items', uuid: 'good', code: 200, body: { id: 1, name: 'n' } });
      client.socket.close();
      assert.equal((await client.closed).code, 1005);
    } finally {
      await child.stop();
    }
  });

  test('--response-validation log: the responses go out, the mismatch is logged once; --openapi serves the typed document', async () => {
    const { base, child } = await serve([
      '--project',
      project,
      '--response-validation',
      'log',
      '--openapi',
      '/openapi.json',
    ]);
    try {
      const document = (await (await fetch(`${base}/openapi.json`)).json()) as {
        paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
      };
      assert.deepEqual(document.paths['/items']?.get?.responses['200'], {
        description: 'OK',
        content: {
          'application/json': { schema: { type: 'array', items: { $ref: '#/components/schemas/Item' } } },
        },
      });
      for (let round = 0; round < 3; round += 1) {
        const reply = await fetch(`${base}/items?broken=true`);
        assert.equal(reply.status, 200);
        assert.deepEqual(await reply.json(), [{ id: 'seven', name: 'x' }]);
      }
      // The next request is answered after the log line of the first was written, if any.
      await (await fetch(`${base}/items`)).arrayBuffer();
      assert.deepEqual(await linesMatching(child, /does not match/, 1), [
        "endpoints: the 200 response of GET /items does not match the handler's return type at /0/id: must be number (logged once per route)",
      ]);
    } finally {
      await child.stop();
    }
  });

  test('without --project, --response-validation is a configuration error naming --project', async () => {
    const { code, stderr } = await new Promise<{ code: number; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [bin, 'serve', '--prefix', fixture, '--host', '127.0.0.1:0', '--response-validation', 'strict'],
        { timeout: 60_000 },
        (error, _out, stderr) => resolve({ code: (error as { code?: number } | null)?.code ?? 0, stderr }),
      );
    });
    assert.equal(code, 2);
    assert.match(stderr, /give project \(APP_PROJECT, --project\), a tsconfig\.json/);
  });
});
