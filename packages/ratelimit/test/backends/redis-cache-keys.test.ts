import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RedisProcess, redisCli, serviceSkip } from '@platform/testkit';
import { request, type TestServer } from '../helpers/server.js';
import { startServiceOnRedis } from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const NOW = 1_700_000_000;
const MINUTE = (seconds: number) => Math.floor(seconds / 60) * 60;

// Exact values on every level (the cache key known at load time), a wildcard, a key without
// value, and a literal wildcard value asked for exactly.
const CONFIG = {
  'keys.yaml': `domain: keys
descriptors:
  - key: route
    value: api
    descriptors:
      - key: method
        value: GET
        rate_limit: {unit: minute, requests_per_unit: 100}
      - key: method
        rate_limit: {unit: minute, requests_per_unit: 100}
  - key: path
    value: /v1/*
    rate_limit: {unit: minute, requests_per_unit: 100}
`,
};

describe('Redis cache keys: the reference format whichever way a descriptor matched', { skip }, () => {
  let redis: RedisProcess;
  let t: TestServer;

  before(async () => {
    ({ redis, t } = await startServiceOnRedis(
      CONFIG,
      { CACHE_KEY_PREFIX: 'pfx:', EXPIRATION_JITTER_MAX_SECONDS: '0' },
      NOW,
    ));
  });
  after(async () => {
    await t?.stop();
    await redis?.stop();
  });

  const count = (key: string) => redisCli(redis.port, ['get', key]);

  test('exact, fallback, wildcard and literal-wildcard matches each count under their own key', async () => {
    const asked = [
      ['route=api', 'method=GET'],
      ['route=api', 'method=POST'],
      ['path=/v1/books'],
      ['path=/v1/*'],
    ];
    for (let i = 0; i < 2; i++) await t.client.shouldRateLimit(request('keys', ...asked));
    const window = MINUTE(NOW);
    assert.equal(await count(`pfx:keys_route_api_method_GET_${window}`), '2');
    assert.equal(await count(`pfx:keys_route_api_method_POST_${window}`), '2');
    assert.equal(await count(`pfx:keys_path_/v1/books_${window}`), '2');
    assert.equal(await count(`pfx:keys_path_/v1/*_${window}`), '2');
  });

  test('an exact match moves to a new key when its window ends, and back to counting from 1', async () => {
    const asked = request('keys', ['route=api', 'method=GET']);
    const first = MINUTE(NOW) + 60;
    t.clock.seconds = first;
    await t.client.shouldRateLimit(asked);
    t.clock.seconds = first + 59;
    await t.client.shouldRateLimit(asked);
    t.clock.seconds = first + 60;
    const response = await t.client.shouldRateLimit(asked);
    assert.equal(await count(`pfx:keys_route_api_method_GET_${first}`), '2');
    assert.equal(await count(`pfx:keys_route_api_method_GET_${first + 60}`), '1');
    assert.equal((response.statuses as Array<Record<string, unknown>>)[0]?.limitRemaining, 99);
  });
});
