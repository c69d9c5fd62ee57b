import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { CounterStore } from '../src/backends/store.js';
import { RateLimitClient } from '../src/client/client.js';
import { StoreError } from '../src/errors.js';
import { counter, request, startTestServer } from './helpers/server.js';

const CONFIG = 'domain: d\ndescriptors:\n  - {key: k, rate_limit: {unit: second, requests_per_unit: 5}}\n';

/** Fault injection: a store that fails while `down` is set, like Redis going away and back. */
function flakyStore(): CounterStore & { down: boolean } {
  return {
    kind: 'redis',
    down: false,
    hit(hits) {
      if (this.down)
        return Promise.reject(new StoreError('dial tcp 127.0.0.1:6379: connect: connection refused'));
      return Promise.resolve(hits.map((hit) => hit.addend));
    },
    isHealthy: () => true,
    onHealthChange: () => {},
    close: () => Promise.resolve(),
  };
}

test('a store failure is gRPC UNKNOWN with the store text, /json 400, redis_error; then it recovers', async () => {
  const store = flakyStore();
  const t = await startTestServer({ 'd.yaml': CONFIG }, {}, { overrides: { store } });
  try {
    store.down = true;
    await assert.rejects(
      t.client.shouldRateLimit(request('d', ['k=v'])),
      (error: { code: number; details: string }) => {
        assert.equal(error.code, 2);
        assert.equal(error.details, 'dial tcp 127.0.0.1:6379: connect: connection refused');
        return true;
      },
    );
    const http = await t.json('{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"v"}]}]}');
    assert.deepEqual([http.status, http.body], [400, 'Bad Request\n']);
    assert.equal(counter(t.server, 'ratelimit.service.call.should_rate_limit.redis_error'), 2);
    store.down = false;
    const response = await t.client.shouldRateLimit(request('d', ['k=v']));
    assert.equal(response.overallCode, 'OK');
  } finally {
    await t.stop();
  }
});

test('GRPC_UDS serves gRPC on a unix socket', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'ratelimit-uds-'));
  const socket = join(dir, 'rls.sock');
  const t = await startTestServer({ 'd.yaml': CONFIG }, { GRPC_UDS: socket });
  const client = new RateLimitClient(`unix:${socket}`);
  try {
    const response = await client.shouldRateLimit(request('d', ['k=uds']));
    assert.equal(response.overallCode, 'OK');
  } finally {
    client.close();
    await t.stop();
    await rm(dir, { recursive: true, force: true });
  }
});
