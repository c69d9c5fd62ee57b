import assert from 'node:assert/strict';
import { once } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type RedisProcess, redisCli, serviceSkip, startRedis } from '@platform/testkit';
import { createRedisStore, readRedisSettings } from '../../src/backends/redis/index.js';
import type { CounterStore } from '../../src/backends/store.js';
import { StoreError } from '../../src/errors.js';
import { eventually, hitOf, recordingDeps, uniquePrefix } from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const noStop = { stopIncrementWhenOverLimit: false };

// The lean RESP connection that serves a single Redis: wire encoding, reply bookkeeping and
// recovery. Pool, auth, TLS, timeouts and restarts are covered by the other Redis store tests.
describe('Redis store: the RESP connection of a single Redis', { skip }, () => {
  let redis: RedisProcess;
  let pipelined: CounterStore;
  let explicit: CounterStore;
  before(async () => {
    redis = await startRedis();
    pipelined = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_PIPELINE_WINDOW: '150us' }),
      recordingDeps(),
      0,
    );
    explicit = createRedisStore(readRedisSettings({ REDIS_URL: redis.address }), recordingDeps(), 0);
  });
  after(async () => {
    await pipelined?.close();
    await explicit?.close();
    await redis?.stop();
  });

  test('keys with multi-byte characters, spaces and CR LF reach Redis byte for byte', async () => {
    const p = uniquePrefix('bytes');
    const keys = [`${p}héllo_wörld_☃`, `${p}with space`, `${p}line\r\nbreak`, `${p}${'x'.repeat(2000)}`];
    assert.deepEqual(
      await explicit.hit(
        keys.map((key) => hitOf(key, 3)),
        noStop,
      ),
      [3, 3, 3, 3],
    );
    for (const key of keys) assert.equal(await redisCli(redis.port, ['get', key]), '3');
    const ttl = Number(await redisCli(redis.port, ['ttl', keys[0] as string]));
    assert.ok(ttl > 0 && ttl <= 60, `EXPIRE was applied: ttl ${ttl}`);
  });

  test("a Redis error reply fails only its own request, with Redis's text, and the connection stays in step", async () => {
    const p = uniquePrefix('error');
    await redisCli(redis.port, ['set', `${p}text`, 'not-a-number']);
    for (const store of [pipelined, explicit]) {
      const outcomes = await Promise.allSettled([
        store.hit([hitOf(`${p}a`)], noStop),
        store.hit([hitOf(`${p}b`), hitOf(`${p}text`), hitOf(`${p}c`)], noStop),
        store.hit([hitOf(`${p}d`, 5)], noStop),
      ]);
      assert.equal(outcomes[0]?.status, 'fulfilled');
      assert.equal(outcomes[2]?.status, 'fulfilled');
      const failed = outcomes[1];
      assert.equal(failed?.status, 'rejected');
      const reason = (failed as PromiseRejectedResult).reason;
      assert.ok(reason instanceof StoreError);
      assert.match(reason.message, /ERR value is not an integer or out of range/);
      // The next request reads its own replies, not the failed one's leftovers.
      const [after] = await store.hit([hitOf(`${p}d`, 1)], noStop);
      assert.equal(after, store === pipelined ? 6 : 12);
    }
  });

  test('a reply that never comes fails its batch after REDIS_TIMEOUT; the connection is replaced and counting goes on', async () => {
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_TIMEOUT: '150ms', REDIS_POOL_SIZE: '1' }),
      recordingDeps(),
      0,
    );
    try {
      const p = uniquePrefix('timeout');
      assert.deepEqual(await store.hit([hitOf(`${p}k`)], noStop), [1]);
      await redisCli(redis.port, ['client', 'pause', '400', 'WRITE']);
      await assert.rejects(store.hit([hitOf(`${p}k`)], noStop), /redis command timed out after 150 ms/);
      let after: number[] = [];
      await eventually(async () => {
        after = await store.hit([hitOf(`${p}k`)], noStop).catch(() => []);
        return after.length === 1;
      });
      // The timed-out INCRBY may or may not have run once Redis resumed; none is counted twice.
      assert.ok(after[0] === 2 || after[0] === 3, `count after recovery: ${after[0]}`);
    } finally {
      await store.close();
    }
  });

  test('GET batches (STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT) read missing keys as 0', async () => {
    const p = uniquePrefix('get');
    const stop = { stopIncrementWhenOverLimit: true };
    await redisCli(redis.port, ['set', `${p}full`, '10']);
    // full is at its limit of 10: only it is incremented past; fresh stays untouched.
    const counts = await pipelined.hit([hitOf(`${p}fresh`, 1, 10), hitOf(`${p}full`, 1, 10)], stop);
    assert.deepEqual(counts, [0, 11]);
  });

  test('3,000 concurrent requests in one pipeline each get their own count (the reply queue compacts midway)', async () => {
    const p = uniquePrefix('many');
    const results = await Promise.all(
      Array.from({ length: 3000 }, (_, i) =>
        pipelined.hit([hitOf(`${p}shared`), hitOf(`${p}own${i}`, i + 1)], noStop),
      ),
    );
    assert.deepEqual(
      results.map((r) => r[0]).sort((a, b) => (a as number) - (b as number)),
      Array.from({ length: 3000 }, (_, i) => i + 1),
    );
    assert.deepEqual(
      results.map((r) => r[1]),
      Array.from({ length: 3000 }, (_, i) => i + 1),
    );
  });
});

/** A fake Redis that answers every command with `reply` (fault injection: bad protocol). */
async function fakeRedis(
  reply: (socket: Socket) => void,
): Promise<{ server: Server; port: number; connections: () => number }> {
  let connections = 0;
  const server = createServer((socket) => {
    connections++;
    socket.on('error', () => {});
    socket.once('data', () => reply(socket));
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const address = server.address();
  return {
    server,
    port: typeof address === 'object' && address ? address.port : 0,
    connections: () => connections,
  };
}

describe('Redis store: a peer that breaks the protocol', () => {
  test('garbage instead of RESP fails the request with a protocol error and never crashes', async () => {
    const { server, port } = await fakeRedis((socket) => socket.write('%%% this is not RESP\r\n'));
    const store = createRedisStore(readRedisSettings({ REDIS_URL: `127.0.0.1:${port}` }), recordingDeps(), 0);
    try {
      await assert.rejects(store.hit([hitOf('k')], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /redis protocol error/);
        return true;
      });
    } finally {
      await store.close();
      server.close();
    }
  });

  test('replies nobody asked for drop the connection, which reconnects', async () => {
    const { server, port, connections } = await fakeRedis((socket) =>
      socket.write(':1\r\n:1\r\n:7\r\n:1\r\n'),
    );
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: `127.0.0.1:${port}`, REDIS_POOL_SIZE: '1' }),
      recordingDeps(),
      0,
    );
    try {
      // The request's own two replies arrive first, so it succeeds; the extra two drop the socket.
      assert.deepEqual(await store.hit([hitOf('k')], noStop), [1]);
      await eventually(() => connections() === 2);
    } finally {
      await store.close();
      server.close();
    }
  });
});
