import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ruleCounters, startTestServer, type TestServer } from './helpers/server.js';

// 1_700_000_040 is a multiple of 60 (and of 30): the start of a minute.
const MINUTE_START = 1_700_000_040;

const CONFIG = `domain: api
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 10, algorithm: sliding_window}
  - key: burst
    rate_limit: {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 5}
  - key: report
    rate_limit: {unit: second, unit_multiplier: 30, requests_per_unit: 3}
  - key: tenant
    rate_limits:
      - {unit: second, requests_per_unit: 3, name: per_second}
      - {unit: minute, requests_per_unit: 4, algorithm: sliding_window, name: per_minute}
  - key: shadowed
    shadow_mode: true
    rate_limits:
      - {unit: minute, requests_per_unit: 1}
      - {unit: hour, requests_per_unit: 5, algorithm: token_bucket}
  - key: replacer
    rate_limit: {unit: minute, requests_per_unit: 100, replaces: [{name: per_minute}]}
  - key: nothing
    rate_limit: {unit: second, requests_per_unit: 0, algorithm: token_bucket}
`;

type Status = {
  code: string;
  limitRemaining: number;
  currentLimit: { name: string; requestsPerUnit: number; unit: string } | null;
  durationUntilReset: { seconds: string | number; nanos: number } | null;
};

async function call(t: TestServer, descriptors: string[], addend = 1): Promise<Status[]> {
  const response = await t.client.shouldRateLimit({
    domain: 'api',
    // The descriptor's own hits_addend, which may be 0 (the request's 0 would mean 1).
    descriptors: descriptors.map((key) => ({
      entries: [{ key, value: 'v' }],
      hitsAddend: { value: addend },
    })),
    hitsAddend: 1,
  });
  return response.statuses as Status[];
}

const one = async (t: TestServer, key: string, addend = 1) => (await call(t, [key], addend))[0] as Status;
const reset = (status: Status) =>
  Number(status.durationUntilReset?.seconds ?? 0) * 1000 + (status.durationUntilReset?.nanos ?? 0) / 1e6;

describe('the new algorithms through gRPC on the memory store', () => {
  test('sliding window: the previous window weighs in by the part of it still in view', async () => {
    const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { startAt: MINUTE_START });
    try {
      for (let i = 0; i < 10; i++) assert.equal((await one(t, 'user')).code, 'OK');
      const over = await one(t, 'user');
      assert.equal(over.code, 'OVER_LIMIT');
      assert.deepEqual(over.currentLimit, { name: '', requestsPerUnit: 10, unit: 'MINUTE' });
      // Half way into the next minute: 11 counted hits (the refused one too) weigh ceil(5.5) = 6.
      t.clock.seconds = MINUTE_START + 90;
      const next = await one(t, 'user');
      assert.equal(next.code, 'OK');
      assert.equal(next.limitRemaining, 3);
      assert.equal(reset(next), 30_000);
      assert.equal((await one(t, 'user', 3)).limitRemaining, 0);
      assert.equal((await one(t, 'user')).code, 'OVER_LIMIT');
      const stats = ruleCounters(t.server, 'api.user');
      assert.equal(stats.total_hits, 16);
      assert.equal(stats.over_limit, 2);
    } finally {
      await t.stop();
    }
  });

  test('token bucket: burst at once, then the refill rate; a refused hit takes nothing', async () => {
    const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { startAt: MINUTE_START });
    try {
      const remaining = [];
      for (let i = 0; i < 5; i++) remaining.push((await one(t, 'burst')).limitRemaining);
      assert.deepEqual(remaining, [4, 3, 2, 1, 0]);
      const refused = await one(t, 'burst');
      assert.equal(refused.code, 'OVER_LIMIT');
      assert.deepEqual(refused.currentLimit, { name: '', requestsPerUnit: 2, unit: 'SECOND' });
      assert.equal(reset(refused), 2500, 'full again after 5 tokens at 2 per second');
      t.clock.seconds = MINUTE_START + 0.499;
      assert.equal((await one(t, 'burst')).code, 'OVER_LIMIT');
      t.clock.seconds = MINUTE_START + 0.5;
      const refilled = await one(t, 'burst');
      assert.equal(refilled.code, 'OK');
      assert.equal(refilled.limitRemaining, 0);
      t.clock.seconds = MINUTE_START + 10;
      assert.equal((await one(t, 'burst', 3)).limitRemaining, 2, 'refilled to the burst, not beyond');
      assert.equal((await one(t, 'burst', 3)).code, 'OVER_LIMIT', 'hits_addend 3 with 2 left');
      assert.equal((await one(t, 'burst', 2)).code, 'OK', 'the refused 3 took none');
      assert.equal((await one(t, 'nothing')).code, 'OVER_LIMIT', 'requests_per_unit 0 refuses all');
    } finally {
      await t.stop();
    }
  });

  test('unit_multiplier: a 30 s fixed window aligned to multiples of 30 s since the epoch', async () => {
    const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { startAt: MINUTE_START + 29 });
    try {
      const first = await one(t, 'report');
      assert.deepEqual(first.durationUntilReset, { seconds: 1, nanos: 0 });
      assert.deepEqual(first.currentLimit, { name: '', requestsPerUnit: 3, unit: 'SECOND' });
      await one(t, 'report');
      assert.equal((await one(t, 'report')).limitRemaining, 0);
      assert.equal((await one(t, 'report')).code, 'OVER_LIMIT');
      t.clock.seconds = MINUTE_START + 30;
      const next = await one(t, 'report');
      assert.equal(next.code, 'OK');
      assert.equal(next.limitRemaining, 2);
      assert.deepEqual(next.durationUntilReset, { seconds: 30, nanos: 0 });
    } finally {
      await t.stop();
    }
  });

  test('rate_limits: every limit counts; the status is the over one, else the least remaining', async () => {
    const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { startAt: MINUTE_START });
    try {
      const first = await one(t, 'tenant');
      assert.equal(first.limitRemaining, 2);
      assert.deepEqual(first.currentLimit, { name: 'per_second', requestsPerUnit: 3, unit: 'SECOND' });
      await one(t, 'tenant');
      const third = await one(t, 'tenant');
      assert.equal(third.limitRemaining, 0, 'the per-second limit: 3 of 3');
      const fourth = await one(t, 'tenant');
      assert.equal(fourth.code, 'OVER_LIMIT');
      assert.deepEqual(fourth.currentLimit?.name, 'per_second');
      // A new second: the per-second limit is fresh, but the minute has counted 4 already.
      t.clock.seconds = MINUTE_START + 1;
      const fifth = await one(t, 'tenant');
      assert.equal(fifth.code, 'OVER_LIMIT');
      assert.deepEqual(fifth.currentLimit, { name: 'per_minute', requestsPerUnit: 4, unit: 'MINUTE' });
      // The per-rule stats count each request once for the descriptor.
      const stats = ruleCounters(t.server, 'api.tenant');
      assert.equal(stats.total_hits, 5);
      assert.equal(stats.over_limit, 2);
      assert.equal(stats.within_limit, 3);
    } finally {
      await t.stop();
    }
  });

  test('rate_limits at a minute edge: the per-second and per-minute windows never share a key', async () => {
    const config = `domain: api
descriptors:
  - key: edge
    rate_limits:
      - {unit: second, requests_per_unit: 2}
      - {unit: minute, requests_per_unit: 3}
`;
    const t = await startTestServer({ 'api.yaml': config }, {}, { startAt: MINUTE_START });
    try {
      // Both windows start at MINUTE_START: with one key, the two would add up in one counter.
      const first = await one(t, 'edge');
      assert.equal(first.limitRemaining, 1);
      assert.equal((await one(t, 'edge')).limitRemaining, 0);
      t.clock.seconds = MINUTE_START + 1;
      const third = await one(t, 'edge');
      assert.equal(third.code, 'OK');
      assert.equal(third.limitRemaining, 0, 'per minute: 3 of 3');
      assert.equal(third.currentLimit?.unit, 'MINUTE');
    } finally {
      await t.stop();
    }
  });

  test('shadow_mode covers the whole list; replaces drops a list by any of its names', async () => {
    const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { startAt: MINUTE_START });
    try {
      await one(t, 'shadowed');
      const shadowed = await one(t, 'shadowed');
      assert.equal(shadowed.code, 'OK');
      assert.equal(ruleCounters(t.server, 'api.shadowed').shadow_mode, 1);
      for (let i = 0; i < 6; i++) {
        const [tenant] = await call(t, ['tenant', 'replacer']);
        assert.equal(tenant?.code, 'OK');
        assert.equal(tenant?.currentLimit, null, 'replaced: answered without a limit');
      }
      assert.equal(ruleCounters(t.server, 'api.tenant').total_hits, 0);
    } finally {
      await t.stop();
    }
  });

  test('response headers come from the deciding limit, with its reset rounded up', async () => {
    const t = await startTestServer(
      { 'api.yaml': CONFIG },
      { LIMIT_RESPONSE_HEADERS_ENABLED: 'true' },
      { startAt: MINUTE_START + 0.25 },
    );
    try {
      for (let i = 0; i < 5; i++) await one(t, 'burst');
      const response = await t.client.shouldRateLimit({
        domain: 'api',
        descriptors: [
          { entries: [{ key: 'burst', value: 'v' }] },
          { entries: [{ key: 'user', value: 'v' }] },
        ],
        hitsAddend: 1,
      });
      const headers = Object.fromEntries(
        (response.responseHeadersToAdd as { key: string; value: string }[]).map((h) => [h.key, h.value]),
      );
      assert.deepEqual(headers, {
        'RateLimit-Limit': '2',
        'RateLimit-Remaining': '0',
        'RateLimit-Reset': '3',
      });
    } finally {
      await t.stop();
    }
  });

  const LIST = `domain: api
descriptors:
  - key: pair
    rate_limits:
      - {unit: second, requests_per_unit: 2}
      - {unit: minute, requests_per_unit: 3, algorithm: sliding_window}
`;

  test('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: a hit refused by one limit of a list is not counted by the others', async () => {
    for (const [stop, remaining] of [
      ['true', 1],
      ['false', 0],
    ] as const) {
      const t = await startTestServer(
        { 'api.yaml': LIST },
        { STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: stop },
        { startAt: MINUTE_START },
      );
      try {
        await one(t, 'pair');
        await one(t, 'pair');
        assert.equal((await one(t, 'pair')).code, 'OVER_LIMIT');
        t.clock.seconds = MINUTE_START + 1;
        const next = await one(t, 'pair', 0);
        assert.equal(
          next.currentLimit?.unit,
          'MINUTE',
          'the per-second limit has 2 left, more than the minute',
        );
        assert.equal(next.limitRemaining, remaining, `STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT=${stop}`);
      } finally {
        await t.stop();
      }
    }
  });

  test('the local cache answers a list whose fixed window is over, and counts none of its limits', async () => {
    const t = await startTestServer(
      { 'api.yaml': LIST },
      { LOCAL_CACHE_SIZE_IN_BYTES: '1000' },
      { startAt: MINUTE_START },
    );
    try {
      for (let i = 0; i < 3; i++) await one(t, 'pair');
      const cached = await one(t, 'pair');
      assert.equal(cached.code, 'OVER_LIMIT');
      assert.equal(cached.currentLimit?.unit, 'SECOND');
      assert.equal(ruleCounters(t.server, 'api.pair').over_limit_with_local_cache, 1);
      t.clock.seconds = MINUTE_START + 1;
      const next = await one(t, 'pair', 0);
      assert.equal(next.currentLimit?.unit, 'MINUTE');
      assert.equal(next.limitRemaining, 0, 'sliding: the 3 hits before the cache answered, not the 4th');
      assert.equal(next.code, 'OK');
    } finally {
      await t.stop();
    }
  });

  test('/json writes a reset with milliseconds as protojson does ("2.500s")', async () => {
    const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { startAt: MINUTE_START });
    try {
      for (let i = 0; i < 5; i++) await one(t, 'burst');
      const body = JSON.stringify({
        domain: 'api',
        descriptors: [{ entries: [{ key: 'burst', value: 'v' }] }],
      });
      const response = await t.json(body);
      assert.equal(response.status, 429);
      assert.match(response.body, /"durationUntilReset":"2\.500s"/);
      t.clock.seconds = MINUTE_START + 0.001;
      assert.match((await t.json(body)).body, /"durationUntilReset":"2\.499s"/, '1 ms of refill');
    } finally {
      await t.stop();
    }
  });
});
