import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { type AppOptions, createApp, EndpointsError } from '../src/index.js';
import { call } from './support/controllers.js';
import { Client, serveApp } from './support/sockets.js';

const packageRoot = fileURLToPath(new URL('..', import.meta.url));
const fixture = 'test/fixtures/validated';

async function validatedApp(options: AppOptions) {
  const lines: string[] = [];
  const app = await createApp({
    controllerPrefix: fixture,
    cwd: packageRoot,
    project: `${fixture}/tsconfig.json`,
    log: (line) => lines.push(line),
    ...options,
  });
  return { app, lines };
}

const postItem = (item: unknown, broken = false) => ({
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify({ item, broken }),
});

describe('response validation', () => {
  test('off (the default): a response that breaks its type goes out, and nothing is logged', async () => {
    const { app, lines } = await validatedApp({});
    const reply = await call(app, '/items?broken=true');
    assert.equal(reply.status, 200);
    assert.deepEqual(reply.json, [{ id: 'seven', name: 'x' }]);
    assert.deepEqual(lines, []);
  });

  test('log: the response goes out, the mismatch is logged once per route with the bad field', async () => {
    const { app, lines } = await validatedApp({ responseValidation: 'log' });
    assert.equal((await call(app, '/items')).status, 200);
    assert.deepEqual(lines, [], 'a matching response logs nothing');
    for (let round = 0; round < 3; round += 1) {
      const reply = await call(app, '/items?broken=true');
      assert.equal(reply.status, 200);
      assert.deepEqual(reply.json, [{ id: 'seven', name: 'x' }]);
    }
    assert.deepEqual(lines, [
      "endpoints: the 200 response of GET /items does not match the handler's return type at /0/id: must be number (logged once per route)",
    ]);
    assert.equal((await call(app, '/items', postItem({ id: 1, name: 'a' }, true))).status, 200);
    assert.equal(lines.length, 2, 'another route logs its own mismatch');
    assert.match(String(lines.at(-1)), /POST \/items .* at \/name: must be string/);
  });

  test('strict: a mismatch is a 500 naming the bad field, logged with the request id', async () => {
    const { app, lines } = await validatedApp({ responseValidation: 'strict' });
    const good = await call(app, '/items');
    assert.equal(good.status, 200);
    assert.deepEqual(good.json, [{ id: 7, name: 'x' }]);
    const bad = await call(app, '/items?broken=true', { headers: { 'x-request-id': 'req-42' } });
    assert.equal(bad.status, 500);
    assert.equal(bad.json, 'the response does not match its schema at /0/id: must be number');
    assert.equal(bad.headers.get('x-request-id'), 'req-42');
    assert.deepEqual(lines, [
      "endpoints: request req-42: the 200 response of GET /items does not match the handler's return type at /0/id: must be number",
    ]);
    // An async handler is checked once its promise settles; without x-request-id one is made up.
    const asyncBad = await call(app, '/items', postItem({ id: 1, name: 'a' }, true));
    assert.equal(asyncBad.status, 500);
    assert.equal(asyncBad.json, 'the response does not match its schema at /name: must be string');
    const id = asyncBad.headers.get('x-request-id') as string;
    assert.match(id, /^[0-9a-f-]{36}$/);
    assert.match(String(lines.at(-1)), new RegExp(`^endpoints: request ${id}: `));
    assert.equal((await call(app, '/items', postItem({ id: 1, name: 'a' }))).status, 200);
  });

  test('settings: validation needs a project, and the mode must be off, log or strict', async () => {
    const refused = (options: AppOptions, message: RegExp) =>
      assert.rejects(
        createApp({ controllerPrefix: fixture, cwd: packageRoot, log: () => {}, ...options }),
        (error: unknown) =>
          error instanceof EndpointsError && error.code === 'INVALID_OPTION' && message.test(error.message),
      );
    await refused({ responseValidation: 'strict' }, /give project \(APP_PROJECT, --project\)/);
    await refused({ messageValidation: true }, /give project \(APP_PROJECT, --project\)/);
    await refused({ env: { APP_RESPONSE_VALIDATION: 'loud' } }, /must be off, log or strict, got 'loud'/);
  });
});

describe('message validation (WebSocket frames)', async () => {
  const { app } = await validatedApp({ messageValidation: true });
  const { server, url } = await serveApp(app);
  after(() => server.close());

  test('a bad frame gets the 400 reply frame, and the socket stays open', async () => {
    const client = new Client(`${url}/items`);
    assert.equal((await client.next()).code, 200, 'CONNECT answered');
    const badBody = await client.send({
      path: '/items',
      method: 'POST',
      uuid: 'a',
      body: { item: { id: 'x', name: 'n' } },
    });
    assert.deepEqual(badBody, {
      path: '/items',
      uuid: 'a',
      code: 400,
      body: "the frame's body does not match its schema at /item/id: must be number",
    });
    const unknownKeyword = await client.send({
      path: '/items',
      method: 'POST',
      uuid: 'b',
      body: { item: { id: 1, name: 'n' }, extra: 1 },
    });
    assert.equal(unknownKeyword.code, 400);
    assert.match(String(unknownKeyword.body), /at \/: must NOT have additional properties 'extra'/);
    const badEnvelope = await client.send({ path: '/items', method: 'GET', uuid: 7 });
    assert.deepEqual(badEnvelope, {
      path: '/items',
      uuid: 7,
      code: 400,
      body: 'the frame does not match its schema at /uuid: must be string',
    });
    const good = await client.send({
      path: '/items',
      method: 'POST',
      uuid: 'c',
      body: { item: { id: 1, name: 'n' } },
    });
    assert.deepEqual(good, { path: '/items', uuid: 'c', code: 200, body: { id: 1, name: 'n' } });
    client.socket.close();
    await client.closed;
  });

  test('off: the same bad body is dispatched as it is', async () => {
    const { app: plain } = await validatedApp({});
    const served = await serveApp(plain);
    try {
      const client = new Client(`${served.url}/items`);
      await client.next();
      const reply = await client.send({
        path: '/items',
        method: 'POST',
        uuid: 'a',
        body: { item: { id: 'x', name: 'n' } },
      });
      assert.deepEqual(reply, { path: '/items', uuid: 'a', code: 200, body: { id: 'x', name: 'n' } });
      client.socket.close();
      await client.closed;
    } finally {
      served.server.close();
    }
  });
});
