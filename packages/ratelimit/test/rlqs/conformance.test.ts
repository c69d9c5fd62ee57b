import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { status } from '@grpc/grpc-js';
import { encodeReport, QuotaStreamClient, type WireForm } from '../helpers/rlqs-client.js';
import { counter, eventually, startTestServer, type TestServer } from '../helpers/server.js';

const CONFIG = `domain: rlqs
descriptors:
  - {key: name, value: api, rate_limit: {unit: minute, requests_per_unit: 60}}
  - {key: name, value: tb, rate_limit: {unit: second, requests_per_unit: 10, algorithm: token_bucket, burst: 20}}
  - {key: name, value: open, rate_limit: {unlimited: true}}
  - {key: name, value: closed, rate_limit: {unit: second, requests_per_unit: 0}}
  - {key: name, value: sliding, rate_limit: {unit: hour, requests_per_unit: 7200, algorithm: sliding_window}}
  - key: name
    value: nested
    descriptors:
      - {key: tier, value: free, rate_limit: {unit: second, requests_per_unit: 5}}
  - {key: user, value: "vip*", rate_limit: {unit: day, requests_per_unit: 1000}}
`;

const RLQS_ENV = {
  RLQS_ENABLED: 'true',
  RLQS_ASSIGNMENT_TTL: '30s',
  RLQS_ABANDON_AFTER: '60s',
  // The tests call rebalance() themselves; the timer must not move shares between their steps.
  RLQS_REBALANCE_INTERVAL: '1h',
  // Config files are written in place, not by swapping the root symlink.
  RUNTIME_WATCH_ROOT: 'false',
};

async function withServer(
  env: Record<string, string>,
  body: (t: TestServer, open: () => QuotaStreamClient) => Promise<void>,
): Promise<void> {
  const server = await startTestServer({ 'rlqs.yaml': CONFIG }, { ...RLQS_ENV, ...env });
  const clients: QuotaStreamClient[] = [];
  const open = () => {
    const client = new QuotaStreamClient(`127.0.0.1:${server.server.ports.grpc}`);
    clients.push(client);
    return client;
  };
  try {
    await body(server, open);
  } finally {
    for (const client of clients) client.close();
    await server.stop();
  }
}

for (const form of ['repeated', 'map'] as WireForm[]) {
  test(`${form} form: the first report subscribes and is answered with each bucket's strategy from the config`, async () => {
    await withServer({}, async (_t, open) => {
      const stream = open();
      stream.report(
        'rlqs',
        [
          { bucket: { name: 'api' }, allowed: 1 },
          { bucket: { name: 'tb' } },
          { bucket: { name: 'open' } },
          { bucket: { name: 'closed' } },
          { bucket: { name: 'sliding' } },
          // Key order in a BucketId carries no meaning: keys are looked up in lexical order.
          { bucket: { tier: 'free', name: 'nested' } },
          { bucket: { user: 'vip-42' } },
          { bucket: { name: 'unknown' } },
        ],
        form,
      );
      const actions = await stream.next();
      const canonical = (bucket: Record<string, string>) => JSON.stringify(Object.entries(bucket).sort());
      const byName = new Map(actions.map((action) => [canonical(action.bucket), action]));
      const of = (bucket: Record<string, string>) => byName.get(canonical(bucket));
      assert.equal(actions.length, 8);
      for (const action of actions) {
        assert.equal(action.kind, 'assign');
        assert.equal(action.ttlMs, 30_000);
      }
      // One client has the whole quota.
      assert.deepEqual(of({ name: 'api' })?.strategy, {
        requestsPerTimeUnit: { requests: 60, unit: 'MINUTE' },
      });
      assert.deepEqual(of({ name: 'tb' })?.strategy, {
        tokenBucket: { maxTokens: 20, tokensPerFill: 10, fillIntervalMs: 1000 },
      });
      assert.deepEqual(of({ name: 'open' })?.strategy, { blanket: 'ALLOW_ALL' });
      assert.deepEqual(of({ name: 'closed' })?.strategy, { blanket: 'DENY_ALL' });
      assert.deepEqual(of({ name: 'sliding' })?.strategy, {
        requestsPerTimeUnit: { requests: 7200, unit: 'HOUR' },
      });
      assert.deepEqual(of({ name: 'nested', tier: 'free' })?.strategy, {
        requestsPerTimeUnit: { requests: 5, unit: 'SECOND' },
      });
      assert.deepEqual(of({ user: 'vip-42' })?.strategy, {
        requestsPerTimeUnit: { requests: 1000, unit: 'DAY' },
      });
      // No rule: the documented default, ALLOW_ALL, as ShouldRateLimit lets such a descriptor through.
      assert.deepEqual(of({ name: 'unknown' })?.strategy, { blanket: 'ALLOW_ALL' });
    });
  });
}

test('a settled report is answered once a third of the time to live has passed, renewing the same strategy; a config reload changes it; idle buckets are abandoned', async () => {
  await withServer({}, async (t, open) => {
    const stream = open();
    stream.report('rlqs', [{ bucket: { name: 'api' } }, { bucket: { name: 'tb' } }]);
    await stream.next();
    // 5 s of a 30 s time to live: the same demand again gets no answer.
    t.clock.seconds += 5;
    stream.report('rlqs', [{ bucket: { name: 'api' } }]);
    await eventually(() => counter(t.server, 'ratelimit.service.rlqs.rlqs.reports') === 2);
    assert.equal(counter(t.server, 'ratelimit.service.rlqs.rlqs.assignments'), 2);
    assert.equal(stream.pending, 0);
    t.clock.seconds += 5;
    // Same strategy again: only its time to live is extended.
    stream.report('', [{ bucket: { name: 'api' }, allowed: 3 }], 'map');
    assert.deepEqual(await stream.next(), [
      {
        bucket: { name: 'api' },
        kind: 'assign',
        ttlMs: 30_000,
        strategy: { requestsPerTimeUnit: { requests: 60, unit: 'MINUTE' } },
      },
    ]);

    // A reload: the next rebalance pushes the new strategy unasked.
    const loads = counter(t.server, 'ratelimit.service.config_load_success');
    await writeFile(
      join(t.configDir, 'rlqs.yaml'),
      CONFIG.replace('requests_per_unit: 60', 'requests_per_unit: 30'),
    );
    await eventually(() => counter(t.server, 'ratelimit.service.config_load_success') > loads);
    await t.server.quota?.rebalance();
    assert.deepEqual(await stream.next(), [
      {
        bucket: { name: 'api' },
        kind: 'assign',
        ttlMs: 30_000,
        strategy: { requestsPerTimeUnit: { requests: 30, unit: 'MINUTE' } },
      },
    ]);

    // tb was last reported 10 s before api (5 s before its silent report); 55 s later only tb has been quiet for RLQS_ABANDON_AFTER.
    t.clock.seconds += 55;
    await t.server.quota?.rebalance();
    assert.deepEqual(await stream.next(), [{ bucket: { name: 'tb' }, kind: 'abandon' }]);
    assert.equal(counter(t.server, 'ratelimit.service.rlqs.rlqs.abandons'), 1);
    assert.equal(counter(t.server, 'ratelimit.service.rlqs.rlqs.reports'), 3);
    assert.equal(counter(t.server, 'ratelimit.service.rlqs.rlqs.streams'), 1);
    assert.equal(counter(t.server, 'ratelimit.service.rlqs.rlqs.assignments'), 4);
  });
});

test('SIGTERM: every open stream is sent its assignments with a time to live of 0 before the drain ends', async () => {
  await withServer({ SHUTDOWN_DRAIN_DURATION: '2s' }, async (t, open) => {
    const first = open();
    const second = open();
    first.report('rlqs', [{ bucket: { name: 'api' } }, { bucket: { name: 'tb' } }]);
    second.report('rlqs', [{ bucket: { name: 'open' } }]);
    await first.next();
    await second.next();
    const stopping = t.server.shutdown();
    const expired = await first.next();
    assert.deepEqual(
      expired.map((action) => [action.bucket.name, action.ttlMs]),
      [
        ['api', 0],
        ['tb', 0],
      ],
    );
    assert.deepEqual(await second.next(), [
      { bucket: { name: 'open' }, kind: 'assign', ttlMs: 0, strategy: { blanket: 'ALLOW_ALL' } },
    ]);
    // During the drain a report is still answered, with TTL 0.
    second.report('rlqs', [{ bucket: { name: 'open' } }]);
    assert.equal((await second.next())[0]?.ttlMs, 0);
    // When the drain ends, the streams end with OK.
    await stopping;
    assert.equal(await first.status(), 'ok');
    assert.equal(await second.status(), 'ok');
  });
});

test('a bad first message ends that stream with INVALID_ARGUMENT and leaves the others', async () => {
  await withServer({}, async (t, open) => {
    const good = open();
    good.report('rlqs', [{ bucket: { name: 'api' } }]);
    await good.next();
    const cases: Array<[string, Buffer, RegExp]> = [
      [
        'no domain',
        encodeReport('', [{ bucket: { name: 'api' } }]),
        /first report of a stream must name its domain/,
      ],
      ['an empty BucketId', encodeReport('rlqs', [{ bucket: {} }]), /bucket_id is empty/],
      [
        'an empty BucketId key',
        encodeReport('rlqs', [{ bucket: { name: 'api', '': 'x' } }]),
        /bucket_id has an empty key/,
      ],
      [
        'an empty BucketId value',
        encodeReport('rlqs', [{ bucket: { name: '' } }], 'map'),
        /bucket_id has an empty value for key 'name'/,
      ],
      [
        'a zero time_elapsed',
        encodeReport('rlqs', [{ bucket: { name: 'api' }, elapsed: 0 }]),
        /time_elapsed must be more than 0/,
      ],
      [
        'a negative time_elapsed',
        encodeReport('rlqs', [{ bucket: { name: 'api' }, elapsed: -2 }], 'map'),
        /time_elapsed must be more than 0/,
      ],
      ['bytes that are not a message', Buffer.from([0x12, 0x05, 0x0a]), /malformed usage report/],
    ];
    for (const [name, bytes, message] of cases) {
      const bad = open();
      bad.send(bytes);
      const ended = await bad.status();
      assert.notEqual(ended, 'ok', name);
      if (ended !== 'ok') {
        assert.equal(ended.code, status.INVALID_ARGUMENT, name);
        assert.match(ended.details, message, name);
      }
    }
    // A stream that switches domains is refused too.
    const switching = open();
    switching.report('rlqs', [{ bucket: { name: 'api' } }]);
    await switching.next();
    switching.report('other', [{ bucket: { name: 'api' } }]);
    const switched = await switching.status();
    assert.ok(switched !== 'ok' && switched.code === status.INVALID_ARGUMENT);

    // The good stream goes on: a third of its assignment's time to live later, a report renews it.
    t.clock.seconds += 10;
    good.report('rlqs', [{ bucket: { name: 'api' } }]);
    assert.equal((await good.next())[0]?.kind, 'assign');
    assert.equal(counter(t.server, 'ratelimit_server.StreamRateLimitQuotas.invalid_reports'), 8);
  });
});

test('stream limits: RLQS_MAX_STREAMS, RLQS_MAX_BUCKETS_PER_STREAM and RLQS_MAX_BUCKETS end the stream past them with RESOURCE_EXHAUSTED', async () => {
  await withServer(
    { RLQS_MAX_STREAMS: '2', RLQS_MAX_BUCKETS_PER_STREAM: '2', RLQS_MAX_BUCKETS: '3' },
    async (t, open) => {
      const first = open();
      first.report('rlqs', [{ bucket: { name: 'api' } }, { bucket: { name: 'tb' } }]);
      await first.next();
      // A third bucket on one stream.
      first.report('rlqs', [{ bucket: { name: 'open' } }]);
      const tooMany = await first.status();
      assert.ok(tooMany !== 'ok' && tooMany.code === status.RESOURCE_EXHAUSTED);
      assert.match(tooMany.details, /RLQS_MAX_BUCKETS_PER_STREAM/);
      await eventually(() => t.server.quota?.openStreams === 0);

      const second = open();
      const third = open();
      second.report('rlqs', [{ bucket: { name: 'api' } }, { bucket: { name: 'tb' } }]);
      await second.next();
      // Buckets in all: api, tb, and one more is the bound's third; a fourth is refused.
      third.report('rlqs', [{ bucket: { name: 'open' } }]);
      await third.next();
      third.report('rlqs', [{ bucket: { name: 'closed' } }]);
      const full = await third.status();
      assert.ok(full !== 'ok' && full.code === status.RESOURCE_EXHAUSTED);
      assert.match(full.details, /RLQS_MAX_BUCKETS\)/);

      const fourth = open();
      const fifth = open();
      fourth.report('rlqs', [{ bucket: { name: 'api' } }]);
      await fourth.next();
      fifth.report('rlqs', [{ bucket: { name: 'api' } }]);
      const refused = await fifth.status();
      assert.ok(refused !== 'ok' && refused.code === status.RESOURCE_EXHAUSTED);
      assert.match(refused.details, /RLQS_MAX_STREAMS/);
      assert.equal(counter(t.server, 'ratelimit.service.rlqs.refused_streams'), 1);
    },
  );
});

test('RLQS_ENABLED with BACKEND_TYPE=memcache is refused at startup with a clear error', async () => {
  await assert.rejects(
    startTestServer({ 'rlqs.yaml': CONFIG }, { RLQS_ENABLED: 'true', BACKEND_TYPE: 'memcache' }),
    /RLQS_ENABLED: the Rate Limit Quota Service needs BACKEND_TYPE=redis or memory/,
  );
});
