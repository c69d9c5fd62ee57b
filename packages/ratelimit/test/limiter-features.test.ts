import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counter, gauge, request, ruleCounters, startTestServer } from './helpers/server.js';

type Status = Record<string, unknown>;
const statusesOf = (response: Record<string, unknown>) => response.statuses as Status[];

const ANOTHER = `domain: another
descriptors:
  - {key: key2, rate_limit: {unit: minute, requests_per_unit: 20}}
  - {key: key3, rate_limit: {unit: hour, requests_per_unit: 10}}
  - {key: key15, rate_limit: {unit: minute, requests_per_unit: 15}}
  - {key: shady, shadow_mode: true, rate_limit: {unit: minute, requests_per_unit: 3}}
  - {key: ten, rate_limit: {unit: minute, requests_per_unit: 10}}
`;

test('local cache: the TestOverLimitWithLocalCache sequence and its gauges', async () => {
  const t = await startTestServer({ 'another.yaml': ANOTHER }, { LOCAL_CACHE_SIZE_IN_BYTES: '1000' });
  try {
    const call = async (addend: number) =>
      statusesOf(
        await t.client.shouldRateLimit({
          domain: 'another',
          descriptors: [{ entries: [{ key: 'key15', value: 'v' }] }],
          hitsAddend: addend,
        }),
      )[0];
    await call(10);
    assert.equal((await call(1))?.limitRemaining, 4); // 10 -> 11
    await call(1); // 11 -> 12
    const nearBefore = ruleCounters(t.server, 'another.key15').near_limit;
    assert.equal((await call(1))?.limitRemaining, 2); // 12 -> 13, near + 1
    assert.equal(ruleCounters(t.server, 'another.key15').near_limit, nearBefore + 1);
    await call(2); // 13 -> 15
    const over = await call(1); // 15 -> 16: over + 1, and cached
    assert.equal(over?.code, 'OVER_LIMIT');
    assert.equal(ruleCounters(t.server, 'another.key15').over_limit, 1);
    const cached = await call(1); // answered by the local cache
    assert.equal(cached?.code, 'OVER_LIMIT');
    assert.deepEqual(cached?.currentLimit, { name: '', requestsPerUnit: 15, unit: 'MINUTE' });
    const stats = ruleCounters(t.server, 'another.key15');
    assert.equal(stats.over_limit, 2);
    assert.equal(stats.over_limit_with_local_cache, 1);
    assert.equal(gauge(t.server, 'ratelimit.localcache.hitCount'), 1);
    assert.equal(gauge(t.server, 'ratelimit.localcache.entryCount'), 1);
    assert.equal(gauge(t.server, 'ratelimit.localcache.missCount'), 6);
    assert.equal(gauge(t.server, 'ratelimit.localcache.lookupCount'), 7);
    // The cached key holds the window start: the next window is counted afresh.
    t.clock.seconds += 60;
    assert.equal((await call(1))?.code, 'OK');
    assert.equal(gauge(t.server, 'ratelimit.localcache.expiredCount'), 0);
  } finally {
    await t.stop();
  }
});

test('local cache: 25 calls on a 20/minute key (testBasicBaseConfig step 3)', async () => {
  const t = await startTestServer({ 'another.yaml': ANOTHER }, { LOCAL_CACHE_SIZE_IN_BYTES: '1000' });
  try {
    for (let i = 0; i < 25; i++) {
      const status = statusesOf(await t.client.shouldRateLimit(request('another', ['key2=random'])))[0];
      assert.equal(status?.code, i < 20 ? 'OK' : 'OVER_LIMIT');
      assert.equal(status?.limitRemaining, i < 20 ? 19 - i : 0);
      const stats = ruleCounters(t.server, 'another.key2');
      assert.equal(stats.total_hits, i + 1);
      assert.equal(stats.over_limit, i >= 20 ? i - 19 : 0);
      assert.equal(stats.over_limit_with_local_cache, i >= 20 ? i - 20 : 0);
      assert.equal(gauge(t.server, 'ratelimit.localcache.hitCount'), i >= 20 ? i - 20 : 0);
      assert.equal(gauge(t.server, 'ratelimit.localcache.missCount'), Math.min(i, 20) + 1);
    }
  } finally {
    await t.stop();
  }
});

test('rule shadow mode: always OK, remaining 0 once over, shadow_mode counts the overrides', async () => {
  const t = await startTestServer({ 'another.yaml': ANOTHER });
  try {
    for (let i = 0; i < 5; i++) {
      const response = await t.client.shouldRateLimit(request('another', ['shady=x']));
      assert.equal(response.overallCode, 'OK');
      assert.equal(statusesOf(response)[0]?.code, 'OK');
      assert.equal(statusesOf(response)[0]?.limitRemaining, Math.max(0, 2 - i));
    }
    const stats = ruleCounters(t.server, 'another.shady');
    assert.equal(stats.shadow_mode, 2);
    assert.equal(stats.over_limit, 2);
    const http = await t.json(
      '{"domain":"another","descriptors":[{"entries":[{"key":"shady","value":"x"}]}]}',
    );
    assert.equal(http.status, 200);
  } finally {
    await t.stop();
  }
});

test('global SHADOW_MODE: overall OK, statuses keep OVER_LIMIT, HTTP 200, global_shadow_mode counted', async () => {
  const t = await startTestServer({ 'another.yaml': ANOTHER }, { SHADOW_MODE: 'true' });
  try {
    await t.client.shouldRateLimit({
      domain: 'another',
      descriptors: [{ entries: [{ key: 'ten', value: 'g' }] }],
      hitsAddend: 10,
    });
    const response = await t.client.shouldRateLimit(request('another', ['ten=g'], ['key2=g']));
    assert.equal(response.overallCode, 'OK');
    assert.deepEqual(
      statusesOf(response).map((status) => status.code),
      ['OVER_LIMIT', 'OK'],
    );
    assert.equal(counter(t.server, 'ratelimit.service.global_shadow_mode'), 1);
    const http = await t.json('{"domain":"another","descriptors":[{"entries":[{"key":"ten","value":"g"}]}]}');
    assert.equal(http.status, 200);
    assert.equal(JSON.parse(http.body).statuses[0].code, 'OVER_LIMIT');
  } finally {
    await t.stop();
  }
});

test('response headers: limit, remaining and reset of the over status (10/MINUTE at clock 2 gives 10, 0, 58)', async () => {
  const t = await startTestServer(
    { 'another.yaml': ANOTHER },
    { LIMIT_RESPONSE_HEADERS_ENABLED: 'true' },
    { startAt: 2 },
  );
  try {
    await t.client.shouldRateLimit({
      domain: 'another',
      descriptors: [{ entries: [{ key: 'ten', value: 'h' }] }],
      hitsAddend: 10,
    });
    const response = await t.client.shouldRateLimit(request('another', ['ten=h'], ['key2=h']));
    assert.deepEqual(response.responseHeadersToAdd, [
      { key: 'RateLimit-Limit', value: '10', rawValue: Buffer.alloc(0) },
      { key: 'RateLimit-Remaining', value: '0', rawValue: Buffer.alloc(0) },
      { key: 'RateLimit-Reset', value: '58', rawValue: Buffer.alloc(0) },
    ]);
    const http = await t.json(
      '{"domain":"another","descriptors":[{"entries":[{"key":"key3","value":"h"}]},{"entries":[{"key":"key2","value":"h2"}]}]}',
    );
    // The smallest remaining wins: key3 has 9 left of 10/hour, key2 19 of 20/minute.
    assert.deepEqual(JSON.parse(http.body).responseHeadersToAdd, [
      { key: 'RateLimit-Limit', value: '10' },
      { key: 'RateLimit-Remaining', value: '9' },
      { key: 'RateLimit-Reset', value: '3598' },
    ]);
    const none = await t.json(
      '{"domain":"another","descriptors":[{"entries":[{"key":"nothing","value":"h"}]}]}',
    );
    assert.equal(JSON.parse(none.body).responseHeadersToAdd, undefined);
  } finally {
    await t.stop();
  }
});

test('response headers use the configured names, and are absent when disabled', async () => {
  const t = await startTestServer(
    { 'another.yaml': ANOTHER },
    {
      LIMIT_RESPONSE_HEADERS_ENABLED: 'true',
      LIMIT_LIMIT_HEADER: 'X-L',
      LIMIT_REMAINING_HEADER: 'X-R',
      LIMIT_RESET_HEADER: 'X-Z',
    },
  );
  const off = await startTestServer({ 'another.yaml': ANOTHER });
  try {
    const response = await t.client.shouldRateLimit(request('another', ['key2=n']));
    assert.deepEqual(
      (response.responseHeadersToAdd as Status[]).map((header) => header.key),
      ['X-L', 'X-R', 'X-Z'],
    );
    const plain = await off.client.shouldRateLimit(request('another', ['key2=n']));
    assert.deepEqual(plain.responseHeadersToAdd, []);
  } finally {
    await t.stop();
    await off.stop();
  }
});

test('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: key2 stays at 10 remaining once key3 is over', async () => {
  const t = await startTestServer(
    { 'another.yaml': ANOTHER },
    { STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true' },
  );
  try {
    for (let i = 0; i < 15; i++) {
      const response = await t.client.shouldRateLimit(request('another', ['key2=stop'], ['key3=stop']));
      const [key2, key3] = statusesOf(response);
      assert.equal(key2?.limitRemaining, i < 10 ? 19 - i : 10, `call ${i}`);
      assert.equal(key3?.code, i < 10 ? 'OK' : 'OVER_LIMIT');
      assert.equal(response.overallCode, i < 10 ? 'OK' : 'OVER_LIMIT');
    }
  } finally {
    await t.stop();
  }
});

test('STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT with the local cache: a cached key stops every increment', async () => {
  const t = await startTestServer(
    { 'another.yaml': ANOTHER },
    { STOP_CACHE_KEY_INCREMENT_WHEN_OVERLIMIT: 'true', LOCAL_CACHE_SIZE_IN_BYTES: '1000' },
  );
  try {
    await t.client.shouldRateLimit({
      domain: 'another',
      descriptors: [{ entries: [{ key: 'ten', value: 'c' }] }],
      hitsAddend: 11,
    });
    const response = await t.client.shouldRateLimit(request('another', ['ten=c'], ['key2=c']));
    assert.equal(statusesOf(response)[0]?.code, 'OVER_LIMIT');
    const again = await t.client.shouldRateLimit(request('another', ['key2=c']));
    assert.equal(statusesOf(again)[0]?.limitRemaining, 19, 'key2 was not incremented by the blocked request');
  } finally {
    await t.stop();
  }
});

test('RESPONSE_DYNAMIC_METADATA echoes the request as a Struct over gRPC and JSON', async () => {
  const t = await startTestServer({ 'another.yaml': ANOTHER }, { RESPONSE_DYNAMIC_METADATA: 'true' });
  try {
    const response = await t.client.shouldRateLimit({
      domain: 'another',
      descriptors: [{ entries: [{ key: 'key2', value: 'm' }], hitsAddend: { value: 2 } }],
      hitsAddend: 3,
    });
    const fields = (response.dynamicMetadata as { fields: Record<string, Record<string, unknown>> }).fields;
    assert.equal(fields.domain?.stringValue, 'another');
    assert.equal(fields.hitsAddend?.numberValue, 3);
    const http = await t.json(
      '{"domain":"another","descriptors":[{"entries":[{"key":"key2","value":"m"}]}]}',
    );
    assert.deepEqual(JSON.parse(http.body).dynamicMetadata, {
      domain: 'another',
      descriptors: [{ entries: ['key2=m'] }],
    });
  } finally {
    await t.stop();
  }
});
