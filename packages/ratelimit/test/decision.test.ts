import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { applyCounterResult, nearLimitThreshold } from '../src/limiter/decision.js';
import { StatStore } from '../src/stats/store.js';
import { ruleCounters, startTestServer, type TestServer } from './helpers/server.js';

const CONFIG = `domain: table
descriptors:
  - {key: l20, rate_limit: {unit: minute, requests_per_unit: 20}}
  - {key: l8, rate_limit: {unit: minute, requests_per_unit: 8}}
  - {key: l10, rate_limit: {unit: minute, requests_per_unit: 10}}
  - {key: zero, rate_limit: {unit: minute, requests_per_unit: 0}}
`;

// The reference note's decision table (ratio 0.8): limit, before -> after (addend),
// then code, remaining and the over / near / within deltas.
const TABLE = [
  { limit: 20, before: 2, addend: 3, code: 'OK', remaining: 15, over: 0, near: 0, within: 3 },
  { limit: 8, before: 5, addend: 2, code: 'OK', remaining: 1, over: 0, near: 1, within: 2 },
  { limit: 20, before: 16, addend: 3, code: 'OK', remaining: 1, over: 0, near: 3, within: 3 },
  { limit: 20, before: 19, addend: 3, code: 'OVER_LIMIT', remaining: 0, over: 2, near: 1, within: 0 },
  { limit: 20, before: 15, addend: 7, code: 'OVER_LIMIT', remaining: 0, over: 2, near: 4, within: 0 },
  { limit: 10, before: 27, addend: 3, code: 'OVER_LIMIT', remaining: 0, over: 3, near: 0, within: 0 },
];

test('near threshold is computed in float32 like the reference', () => {
  assert.equal(nearLimitThreshold(8, 0.8), 6);
  assert.equal(nearLimitThreshold(20, 0.8), 16);
  assert.equal(nearLimitThreshold(10, 0.8), 8);
  assert.equal(nearLimitThreshold(15, 0.8), 12);
});

test('the arithmetic matches every row of the decision table', () => {
  for (const row of TABLE) {
    const stats = new StatStore().ruleStats('x');
    const remaining = applyCounterResult(
      stats,
      row.limit,
      nearLimitThreshold(row.limit, 0.8),
      row.before + row.addend,
      row.addend,
    );
    assert.equal(remaining, row.code === 'OK' ? row.remaining : -1, JSON.stringify(row));
    assert.deepEqual(
      [stats.overLimit.value, stats.nearLimit.value, stats.withinLimit.value],
      [row.over, row.near, row.within],
    );
  }
});

describe('decision table over gRPC, with counters moved by hitsAddend', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ 'table.yaml': CONFIG });
  });
  after(() => t.stop());

  for (const [index, row] of TABLE.entries()) {
    test(`limit ${row.limit}: ${row.before} -> ${row.before + row.addend}`, async () => {
      const key = `l${row.limit}`;
      const value = `row${index}`;
      const entries = [{ key, value }];
      if (row.before > 0) {
        await t.client.shouldRateLimit({
          domain: 'table',
          descriptors: [{ entries, hitsAddend: { value: row.before } }],
        });
      }
      const start = ruleCounters(t.server, `table.${key}`);
      const response = await t.client.shouldRateLimit({
        domain: 'table',
        descriptors: [{ entries }],
        hitsAddend: row.addend,
      });
      const end = ruleCounters(t.server, `table.${key}`);
      const status = (response.statuses as Array<Record<string, unknown>>)[0];
      assert.equal(status?.code, row.code);
      assert.equal(status?.limitRemaining, row.remaining);
      assert.deepEqual(status?.currentLimit, { name: '', requestsPerUnit: row.limit, unit: 'MINUTE' });
      assert.equal(end.total_hits - start.total_hits, row.addend);
      assert.equal(end.over_limit - start.over_limit, row.over);
      assert.equal(end.near_limit - start.near_limit, row.near);
      assert.equal(end.within_limit - start.within_limit, row.within);
    });
  }

  test('a check-only descriptor (hitsAddend 0) at 11 of 10 is over, and counts nothing', async () => {
    const entries = [{ key: 'l10', value: 'check-only' }];
    await t.client.shouldRateLimit({
      domain: 'table',
      descriptors: [{ entries, hitsAddend: { value: 11 } }],
    });
    const start = ruleCounters(t.server, 'table.l10');
    const response = await t.client.shouldRateLimit({
      domain: 'table',
      descriptors: [{ entries, hitsAddend: { value: 0 } }],
      hitsAddend: 5,
    });
    const end = ruleCounters(t.server, 'table.l10');
    assert.equal(response.overallCode, 'OVER_LIMIT');
    assert.deepEqual(end, start);
  });

  test('the request hitsAddend 0 means 1; a descriptor hitsAddend overrides it', async () => {
    const response = await t.client.shouldRateLimit({
      domain: 'table',
      descriptors: [
        { entries: [{ key: 'l20', value: 'addend-default' }] },
        { entries: [{ key: 'l20', value: 'addend-own' }], hitsAddend: { value: 4 } },
      ],
      hitsAddend: 0,
    });
    const statuses = response.statuses as Array<Record<string, unknown>>;
    assert.equal(statuses[0]?.limitRemaining, 19);
    assert.equal(statuses[1]?.limitRemaining, 16);
  });

  test('check-only on an empty counter is OK with 0 remaining; requests_per_unit 0 blocks every hit', async () => {
    const check = await t.client.shouldRateLimit({
      domain: 'table',
      descriptors: [{ entries: [{ key: 'zero', value: 'a' }], hitsAddend: { value: 0 } }],
    });
    assert.equal(check.overallCode, 'OK');
    const hit = await t.client.shouldRateLimit({
      domain: 'table',
      descriptors: [{ entries: [{ key: 'zero', value: 'a' }] }],
    });
    assert.equal(hit.overallCode, 'OVER_LIMIT');
  });

  test('a fresh window resets the count, and durationUntilReset counts down to the window edge', async () => {
    const entries = [{ key: 'l8', value: 'window' }];
    t.clock.seconds = 1_700_000_020; // 20 s before a minute edge (1_700_000_040 is divisible by 60)
    const first = await t.client.shouldRateLimit({
      domain: 'table',
      descriptors: [{ entries }],
      hitsAddend: 8,
    });
    const status = (first.statuses as Array<Record<string, unknown>>)[0];
    assert.deepEqual(status?.durationUntilReset, { seconds: 20, nanos: 0 });
    const over = await t.client.shouldRateLimit({ domain: 'table', descriptors: [{ entries }] });
    assert.equal(over.overallCode, 'OVER_LIMIT');
    t.clock.seconds = 1_700_000_040;
    const next = await t.client.shouldRateLimit({ domain: 'table', descriptors: [{ entries }] });
    const nextStatus = (next.statuses as Array<Record<string, unknown>>)[0];
    assert.equal(next.overallCode, 'OK');
    assert.equal(nextStatus?.limitRemaining, 7);
    assert.deepEqual(nextStatus?.durationUntilReset, { seconds: 60, nanos: 0 });
  });
});
