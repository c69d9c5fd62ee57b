import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type RedisProcess, redisCli, serviceSkip, startRedis } from '@platform/testkit';
import { createRedisStore, POOL_EMPTY_MESSAGE, readRedisSettings } from '../../src/backends/redis/index.js';
import type { CounterStore } from '../../src/backends/store.js';
import { StoreError } from '../../src/errors.js';
import { hitOf, recordingDeps, uniquePrefix } from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const noStop = { stopIncrementWhenOverLimit: false };
const PAUSE_MS = 700;

/** All five contending calls succeeded, and each saw its own count: 1 to 5. */
function assertServedInTurn(outcomes: PromiseSettledResult<number[]>[]): void {
  const values = outcomes.map((o) => (o.status === 'fulfilled' ? o.value[0] : o.reason));
  assert.deepEqual(
    values.sort((a, b) => a - b),
    [1, 2, 3, 4, 5],
  );
}

describe('Redis store: pool of 1 under concurrency', { skip }, () => {
  let redis: RedisProcess;
  before(async () => {
    redis = await startRedis();
  });
  after(async () => {
    await redis?.stop();
  });

  async function connectionsReceived(): Promise<number> {
    const info = await redisCli(redis.port, ['info', 'stats']);
    return Number(/total_connections_received:(\d+)/.exec(info)?.[1]);
  }

  /**
   * Holds every write for PAUSE_MS (CLIENT PAUSE WRITE), then sends 5 requests at once through a
   * store whose pool has one connection: the first takes it, the other 4 find the pool empty.
   * Returns each request's outcome and how many connections the store opened meanwhile.
   */
  async function contend(env: NodeJS.ProcessEnv) {
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_POOL_SIZE: '1', ...env }),
      recordingDeps(),
      0,
    );
    try {
      const p = uniquePrefix('pool');
      await store.hit([hitOf(`${p}warm`)], noStop);
      return { ...(await burst(store, p)), store };
    } catch (error) {
      await store.close();
      throw error;
    }
  }

  /** One contention on a warm store: 5 requests at once while Redis holds every write. */
  async function burst(store: CounterStore, p: string) {
    const before = await connectionsReceived();
    await redisCli(redis.port, ['client', 'pause', String(PAUSE_MS), 'WRITE']);
    const started = Date.now();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => store.hit([hitOf(`${p}k`)], noStop)),
    );
    const elapsed = Date.now() - started;
    // Two redis-cli connections (INFO before, CLIENT PAUSE) plus this INFO, which counts itself.
    const opened = (await connectionsReceived()) - before - 2;
    return { outcomes, opened, elapsed };
  }

  test('ERROR: the callers that find the pool empty fail after the wait duration with "connection pool is empty"', async () => {
    const { outcomes, opened, store } = await contend({
      REDIS_POOL_ON_EMPTY_BEHAVIOR: 'ERROR',
      REDIS_POOL_ON_EMPTY_WAIT_DURATION: '100ms',
    });
    await store.close();
    const fulfilled = outcomes.filter((o) => o.status === 'fulfilled');
    const rejected = outcomes.flatMap((o) => (o.status === 'rejected' ? [o.reason] : []));
    assert.equal(fulfilled.length, 1);
    assert.equal(rejected.length, 4);
    for (const reason of rejected) {
      assert.ok(reason instanceof StoreError);
      assert.equal(reason.message, POOL_EMPTY_MESSAGE);
    }
    assert.equal(opened, 0);
  });

  test('WAIT: every caller queues for the one connection; nothing extra is opened', async () => {
    const { outcomes, opened, store } = await contend({
      REDIS_POOL_ON_EMPTY_BEHAVIOR: 'WAIT',
      REDIS_POOL_ON_EMPTY_WAIT_DURATION: '100ms',
    });
    await store.close();
    assertServedInTurn(outcomes);
    assert.equal(opened, 0);
  });

  test('CREATE: after the wait duration each waiting caller gets an extra connection', async () => {
    const { outcomes, opened, store } = await contend({
      REDIS_POOL_ON_EMPTY_BEHAVIOR: 'CREATE',
      REDIS_POOL_ON_EMPTY_WAIT_DURATION: '100ms',
    });
    await store.close();
    assert.deepEqual(
      outcomes.map((o) => o.status),
      ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
    );
    assert.equal(opened, 4);
  });

  test('CREATE: an extra connection that comes back to a full pool is kept (radix overflow buffer) and lent to the next burst', async () => {
    const { opened, store } = await contend({
      REDIS_POOL_ON_EMPTY_BEHAVIOR: 'CREATE',
      REDIS_POOL_ON_EMPTY_WAIT_DURATION: '100ms',
    });
    try {
      assert.equal(opened, 4);
      // Pool size 1 keeps (1 / 3) + 1 = 1 overflow connection: the next burst opens one fewer.
      const again = await burst(store, uniquePrefix('pool'));
      assert.deepEqual(
        again.outcomes.map((o) => o.status),
        ['fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled'],
      );
      assert.equal(again.opened, 3);
    } finally {
      await store.close();
    }
  });

  // 150us is under Node's 1 ms timer resolution: it flushes at the end of the loop turn instead.
  for (const window of ['2ms', '150us']) {
    test(`implicit pipelining (window ${window}): concurrent requests share one lease, so even ERROR on a pool of 1 serves them all`, async () => {
      const { outcomes, opened, store } = await contend({
        REDIS_POOL_ON_EMPTY_BEHAVIOR: 'ERROR',
        REDIS_POOL_ON_EMPTY_WAIT_DURATION: '100ms',
        REDIS_PIPELINE_WINDOW: window,
      });
      await store.close();
      assertServedInTurn(outcomes);
      assert.equal(opened, 0);
    });
  }

  test('implicit pipelining: a turn that outlasts the window still sends its calls together, at its end', async () => {
    const store = createRedisStore(
      readRedisSettings({
        REDIS_URL: redis.address,
        REDIS_POOL_SIZE: '1',
        REDIS_POOL_ON_EMPTY_BEHAVIOR: 'ERROR',
        REDIS_POOL_ON_EMPTY_WAIT_DURATION: '100ms',
        REDIS_PIPELINE_WINDOW: '150us',
      }),
      recordingDeps(),
      0,
    );
    try {
      const p = uniquePrefix('window');
      await store.hit([hitOf(`${p}warm`)], noStop);
      await redisCli(redis.port, ['client', 'pause', String(PAUSE_MS), 'WRITE']);
      const first = store.hit([hitOf(`${p}k`)], noStop);
      // Still the same turn, 1 ms later: the first call's window has passed. Had it been sent on
      // its own, it would hold the only connection while Redis is paused, and the second call
      // would fail on the empty pool after 100 ms.
      const busyUntil = performance.now() + 1;
      while (performance.now() < busyUntil);
      const second = store.hit([hitOf(`${p}k`)], noStop);
      const values = (await Promise.all([first, second])).map((r) => r[0]);
      assert.deepEqual(values, [1, 2]);
    } finally {
      await store.close();
    }
  });

  test('implicit pipelining with only a limit flushes every REDIS_PIPELINE_LIMIT commands and keeps every count', async () => {
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_PIPELINE_LIMIT: '4', REDIS_POOL_SIZE: '2' }),
      recordingDeps(),
      0,
    );
    try {
      const p = uniquePrefix('limit');
      const results = await Promise.all(
        Array.from({ length: 41 }, () => store.hit([hitOf(`${p}a`), hitOf(`${p}b`, 2)], noStop)),
      );
      const seen = results.map((r) => r[0] as number).sort((a, b) => a - b);
      assert.deepEqual(
        seen,
        Array.from({ length: 41 }, (_, i) => i + 1),
      );
      assert.equal(await redisCli(redis.port, ['get', `${p}b`]), '82');
    } finally {
      await store.close();
    }
  });

  test('REDIS_TIMEOUT bounds a call that gets no answer', async () => {
    const store = createRedisStore(
      readRedisSettings({ REDIS_URL: redis.address, REDIS_TIMEOUT: '150ms' }),
      recordingDeps(),
      0,
    );
    try {
      const p = uniquePrefix('timeout');
      await store.hit([hitOf(`${p}warm`)], noStop);
      await redisCli(redis.port, ['client', 'pause', '600', 'WRITE']);
      await assert.rejects(store.hit([hitOf(`${p}k`)], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /timed out/i);
        return true;
      });
    } finally {
      await store.close();
    }
  });
});

describe('Redis store: per-second instance', { skip }, () => {
  let main: RedisProcess;
  let perSecond: RedisProcess;
  let store: CounterStore;
  before(async () => {
    main = await startRedis();
    perSecond = await startRedis();
    store = createRedisStore(
      readRedisSettings({
        REDIS_URL: main.address,
        REDIS_PERSECOND: 'true',
        REDIS_PERSECOND_URL: perSecond.address,
        REDIS_PERSECOND_POOL_SIZE: '2',
      }),
      recordingDeps(),
      0,
    );
  });
  after(async () => {
    await store?.close();
    await main?.stop();
    await perSecond?.stop();
  });

  test('SECOND-unit keys go to REDIS_PERSECOND_URL and every other key to REDIS_URL', async () => {
    const p = uniquePrefix('route');
    const values = await store.hit(
      [
        hitOf(`${p}sec`, 2, 10, 'SECOND'),
        hitOf(`${p}min`, 3, 10, 'MINUTE'),
        hitOf(`${p}sec2`, 4, 10, 'SECOND'),
        hitOf(`${p}day`, 5, 10, 'DAY'),
      ],
      noStop,
    );
    assert.deepEqual(values, [2, 3, 4, 5]);
    const read = (redis: RedisProcess, key: string) => redisCli(redis.port, ['get', key]);
    assert.equal(await read(perSecond, `${p}sec`), '2');
    assert.equal(await read(perSecond, `${p}sec2`), '4');
    assert.equal(await read(perSecond, `${p}min`), '');
    assert.equal(await read(main, `${p}min`), '3');
    assert.equal(await read(main, `${p}day`), '5');
    assert.equal(await read(main, `${p}sec`), '');
  });

  test('stop-increment reads each key from the instance that holds it', async () => {
    const p = uniquePrefix('routestop');
    const request = () => [hitOf(`${p}sec`, 1, 1, 'SECOND'), hitOf(`${p}min`, 1, 10, 'MINUTE')];
    await store.hit(request(), { stopIncrementWhenOverLimit: true });
    assert.deepEqual(await store.hit(request(), { stopIncrementWhenOverLimit: true }), [2, 1]);
    assert.equal(await redisCli(perSecond.port, ['get', `${p}sec`]), '2');
    assert.equal(await redisCli(main.port, ['get', `${p}min`]), '1');
  });
});
