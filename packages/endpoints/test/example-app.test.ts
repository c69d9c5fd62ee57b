import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/index.js';
import { call } from './support/controllers.js';

describe('the example app', async () => {
  const app = await createApp({
    controllerPrefix: fileURLToPath(new URL('../examples/controllers', import.meta.url)),
  });

  test("the spec README's three calls", async () => {
    assert.equal((await call(app, '/')).text, '"Default handler"');
    assert.equal((await call(app, '/foo')).text, '"Foo handler"');
    const form = new URLSearchParams({ name: 'Awesome you' });
    assert.equal((await call(app, '/', { method: 'POST', body: form })).text, '"hello Awesome you"');
  });

  test('users: list, show, create, delete, and typed arguments', async () => {
    assert.deepEqual((await call(app, '/users?limit=1')).json, [{ id: 1, name: 'Ada' }]);
    assert.deepEqual((await call(app, '/users/2')).json, { id: 2, name: 'Grace' });
    assert.equal((await call(app, '/users/x')).status, 400);
    assert.equal((await call(app, '/users/99')).status, 404);
    const created = await call(app, '/users', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"name":"Linus"}',
    });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), '/users/3');
    assert.equal((await call(app, '/users/3', { method: 'DELETE' })).status, 204);
    assert.equal((await call(app, '/users', { method: 'PATCH' })).headers.get('allow'), 'DELETE, GET, POST');
  });

  test('files, admin and api/status', async () => {
    const form = new FormData();
    form.append('upload', new File(['hello'], 'hello.txt', { type: 'text/plain' }));
    assert.deepEqual((await call(app, '/files', { method: 'POST', body: form })).json, {
      name: 'hello.txt',
      type: 'text/plain',
      bytes: 5,
      label: '',
    });
    const denied = await call(app, '/admin');
    assert.equal(denied.status, 401);
    const admin = await call(app, '/admin', {
      headers: { authorization: `Basic ${btoa('admin:change-me')}` },
    });
    assert.equal(admin.status, 200);
    assert.equal(admin.headers.get('pragma'), 'no-cache');
    const status = await call(app, '/api/status/ok', { headers: { origin: 'https://web.example' } });
    assert.deepEqual(status.json, { ok: true });
    assert.equal(status.headers.get('cache-control'), 'max-age=60');
    assert.equal(status.headers.get('access-control-allow-origin'), 'https://web.example');
  });
});
