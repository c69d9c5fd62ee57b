import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { Parser } from '@asyncapi/parser';
import { createApp } from '../src/index.js';
import { assertGolden } from './support/documents.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const tsx = join(packageRoot, '..', '..', 'node_modules', '.bin', 'tsx');
const bin = join(packageRoot, 'bin', 'endpoints.ts');

/** The parser's findings of severity error (0) or warning (1); information and hints are left out. */
async function problems(document: unknown): Promise<string[]> {
  const diagnostics = await new Parser().validate(JSON.stringify(document));
  return diagnostics
    .filter((diagnostic) => diagnostic.severity <= 1)
    .map((diagnostic) => `${diagnostic.code} at ${diagnostic.path.join('.')}: ${diagnostic.message}`);
}

describe('AsyncAPI 3.0 for WebSocket controllers', () => {
  test('the example app: app.asyncapi({ project }) golden document, valid for @asyncapi/parser', async () => {
    const app = await createApp({
      controllerPrefix: 'examples/controllers',
      cwd: packageRoot,
      log: () => {},
    });
    const document = app.asyncapi({
      title: 'endpoints example app',
      version: '1.0.0',
      project: 'tsconfig.json',
    });
    assertGolden(document, 'example-app.asyncapi.json');
    assert.deepEqual(await problems(document), []);
    assert.deepEqual(Object.keys(document.channels), ['chat']);
    assert.equal(document.channels.chat?.address, '/chat');
    assert.deepEqual(Object.keys(document.operations).sort(), [
      'chatConnect',
      'chatDisconnect',
      'getChat',
      'postChat',
    ]);
    const chat = document.channels.chat as { messages: Record<string, { payload: Record<string, unknown> }> };
    const post = chat.messages.postChatRequest as { payload: Record<string, unknown> };
    assert.deepEqual(post.payload.required, ['path', 'body']);
    assert.deepEqual((post.payload.properties as Record<string, unknown>).body, {
      $ref: '#/components/schemas/PostChatBody',
    });
  });

  test('every type construct: `endpoints asyncapi --project` golden document, valid for @asyncapi/parser', async () => {
    const { stdout } = await promisify(execFile)(
      tsx,
      [bin, 'asyncapi', '--prefix', 'test/fixtures/types', '--project', 'test/fixtures/types/tsconfig.json'],
      { cwd: packageRoot, timeout: 240_000 },
    );
    const document = JSON.parse(stdout);
    assertGolden(document, 'types.asyncapi.json');
    assert.deepEqual(await problems(document), []);
    assert.deepEqual(Object.keys(document.channels), ['shapes']);
  });

  test('an app without WebSocket controllers has no channels, and is still a valid document', async () => {
    const app = await createApp({
      controllerPrefix: 'test/fixtures/params',
      cwd: packageRoot,
      log: () => {},
    });
    const document = app.asyncapi();
    assert.deepEqual(document.channels, {});
    assert.deepEqual(await problems(document), []);
  });
});
