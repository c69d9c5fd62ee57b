import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ServiceError } from '@grpc/grpc-js';
import { type RedisProcess, redisCli, serviceSkip, startRedis } from '@platform/testkit';
import { request, type TestServer } from '../helpers/server.js';
import { assertTtl, eventually, startServiceOnRedis } from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const REDIS_ERROR = 'ratelimit.service.call.should_rate_limit.redis_error';
const NOW = 1_700_000_000;
const MINUTE_WINDOW = Math.floor(NOW / 60) * 60;

const CONFIG = {
  'stores.yaml': `domain: stores
descriptors:
  - key: user
    rate_limit:
      unit: minute
      requests_per_unit: 3
  - key: burst
    rate_limit:
      unit: second
      requests_per_unit: 2
`,
};

describe('the service with the Redis store', { skip }, () => {
  let redis: RedisProcess;
  let t: TestServer;
  let restarted: RedisProcess | undefined;

  before(async () => {
    ({ redis, t } = await startServiceOnRedis(
      CONFIG,
      {
        REDIS_HEALTH_CHECK_ACTIVE_CONNECTION: 'true',
        REDIS_TIMEOUT: '2s',
        EXPIRATION_JITTER_MAX_SECONDS: '0',
      },
      NOW,
    ));
  });
  after(async () => {
    await t?.stop();
    await (restarted ?? redis)?.stop();
  });

  test('gRPC: counts live in Redis under the reference key format, with EXPIRE of one window', async () => {
    const statuses: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await t.client.shouldRateLimit(request('stores', ['user=alice']));
      statuses.push(response.overallCode);
    }
    assert.deepEqual(statuses, ['OK', 'OK', 'OK', 'OVER_LIMIT']);
    const key = `stores_user_alice_${MINUTE_WINDOW}`;
    assert.equal(await redisCli(redis.port, ['get', key]), '4');
    assertTtl(await redisCli(redis.port, ['ttl', key]), 60);
  });

  test('/json: 200 while within the limit, 429 once over', async () => {
    const body = JSON.stringify(request('stores', ['burst=b1']));
    const codes = [];
    for (let i = 0; i < 3; i++) codes.push((await t.json(body)).status);
    assert.deepEqual(codes, [200, 200, 429]);
    const over = JSON.parse((await t.json(body)).body);
    assert.equal(over.overallCode, 'OVER_LIMIT');
    assert.equal(await redisCli(redis.port, ['get', `stores_burst_b1_${NOW}`]), '4');
  });

  test('Redis killed mid-run: UNKNOWN with the Redis error text, /json 400, redis_error counted, health fails; then recovery', async () => {
    const errorsBefore = t.server.stats.snapshot().counters.get(REDIS_ERROR) ?? 0;
    await redis.stop();
    await eventually(async () => (await t.get('http', '/healthcheck')).status === 500);
    assert.deepEqual(await t.get('http', '/healthcheck'), { status: 500, body: '' });
    assert.equal((await t.client.check('ratelimit')).status, 'NOT_SERVING');

    await assert.rejects(t.client.shouldRateLimit(request('stores', ['user=bob'])), (error: ServiceError) => {
      assert.equal(error.code, 2); // UNKNOWN
      // Right after the kill the connection reports its close; once a reconnect was refused, that.
      assert.match(
        error.details,
        /^(connect ECONNREFUSED 127\.0\.0\.1:\d+|connection to redis at 127\.0\.0\.1:\d+ was closed)$/,
      );
      return true;
    });
    const json = await t.json(JSON.stringify(request('stores', ['user=bob'])));
    assert.equal(json.status, 400);
    assert.equal(json.body, 'Bad Request\n');
    assert.equal(t.server.stats.snapshot().counters.get(REDIS_ERROR), errorsBefore + 2);

    restarted = await startRedis({ port: redis.port });
    await eventually(async () => (await t.get('http', '/healthcheck')).status === 200);
    assert.equal((await t.client.check('ratelimit')).status, 'SERVING');
    const response = await t.client.shouldRateLimit(request('stores', ['user=bob']));
    assert.equal(response.overallCode, 'OK');
    assert.equal(await redisCli(restarted.port, ['get', `stores_user_bob_${MINUTE_WINDOW}`]), '1');
  });
});
