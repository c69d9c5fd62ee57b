import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RateLimitClient } from '../src/client/client.js';
import { startChildServer } from './helpers/child-server.js';
import { eventually, request } from './helpers/server.js';

const CONFIG = {
  'd.yaml':
    'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 1000 }\n',
};
const JSON_BODY = JSON.stringify({ domain: 'd', descriptors: [{ entries: [{ key: 'k', value: 'v' }] }] });

test('SIGTERM with SHUTDOWN_DRAIN_DURATION: health fails at once, calls are served through the drain, then a clean exit', async (t) => {
  // Long enough for the calls below on a loaded machine; the force timer would add 10 s more.
  const drainMs = 5000;
  const server = await startChildServer(CONFIG, { SHUTDOWN_DRAIN_DURATION: '5s' });
  t.after(() => server.stop());
  const http = `http://127.0.0.1:${server.ports.http}`;
  const grpc = new RateLimitClient(`127.0.0.1:${server.ports.grpc}`);
  t.after(() => grpc.close());
  assert.equal((await fetch(`${http}/healthcheck`)).status, 200);
  assert.equal((await grpc.shouldRateLimit(request('d', ['k=v']))).overallCode, 'OK');
  // A health Watch stream stays open until the server ends it.
  const watch = grpc.watch('ratelimit');
  const watched: string[] = [];
  watch.on('data', (message: { status: string }) => watched.push(message.status));
  watch.on('error', () => {});

  const signalled = performance.now();
  server.process.kill('SIGTERM');
  // The signal reaches the process's event loop a moment later: until then health is still OK.
  await eventually(async () => {
    const health = await fetch(`${http}/healthcheck`);
    await health.arrayBuffer();
    return health.status === 500;
  }, drainMs);
  // Through the drain the listeners serve, on kept-alive and on new connections.
  const json = await fetch(`${http}/json`, { method: 'POST', body: JSON_BODY });
  assert.equal(json.status, 200);
  await json.arrayBuffer();
  assert.equal((await grpc.shouldRateLimit(request('d', ['k=v']))).overallCode, 'OK');

  // A keep-alive client that keeps calling, an idle gRPC channel and the Watch stream: none of
  // them holds the exit back until the 10 s force timer.
  let calling = true;
  const busyClient = (async () => {
    while (calling) {
      const answer = await fetch(`${http}/json`, { method: 'POST', body: JSON_BODY }).catch(() => undefined);
      if (!answer) return;
      await answer.arrayBuffer();
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  })();
  const code = await server.exited;
  const exitMs = performance.now() - signalled;
  calling = false;
  await busyClient;
  assert.equal(code, 0, server.stderr());
  assert.ok(exitMs >= drainMs - 100, `exited ${Math.round(exitMs)} ms after SIGTERM, before the drain ended`);
  assert.ok(exitMs < drainMs + 5000, `exited ${Math.round(exitMs)} ms after SIGTERM`);
  assert.ok(watched.includes('NOT_SERVING'), String(watched));
});

test('SHUTDOWN_DRAIN_DURATION=0 (the default) stops at once, like the reference', async (t) => {
  const server = await startChildServer(CONFIG);
  t.after(() => server.stop());
  const signalled = performance.now();
  server.process.kill('SIGTERM');
  assert.equal(await server.exited, 0);
  assert.ok(performance.now() - signalled < 5000);
});
