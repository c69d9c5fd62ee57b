import assert from 'node:assert/strict';
import { once } from 'node:events';
import { test } from 'node:test';
import { type QuotaAssignment, RateLimitQuotaClient } from '../../src/lib.js';
import { startTestServer } from '../helpers/server.js';

const CONFIG = `domain: lib
descriptors:
  - {key: name, value: api, rate_limit: {unit: minute, requests_per_unit: 3}}
  - {key: name, value: tb, rate_limit: {unit: second, requests_per_unit: 1, algorithm: token_bucket, burst: 2}}
`;

test('RateLimitQuotaClient: decides locally without an assignment, reports, then enforces the assigned quota', async (t) => {
  const server = await startTestServer(
    { 'lib.yaml': CONFIG },
    {
      RLQS_ENABLED: 'true',
      RLQS_REBALANCE_INTERVAL: '1h',
      RLQS_ASSIGNMENT_TTL: '1h',
    },
  );
  t.after(() => server.stop());
  let now = 1_700_000_000_000;
  const client = new RateLimitQuotaClient({
    address: `127.0.0.1:${server.server.ports.grpc}`,
    domain: 'lib',
    reportIntervalMs: 0,
    now: () => now,
  });
  t.after(() => client.close());
  // No assignment yet: allowed (the default), and counted.
  assert.equal(client.take({ name: 'api' }), true);
  assert.equal(client.take({ name: 'tb' }), true);
  const assigned: QuotaAssignment[] = [];
  client.on('assignment', (assignment: QuotaAssignment) => assigned.push(assignment));
  client.reportNow();
  while (assigned.length < 2) await once(client, 'assignment');
  assert.deepEqual(client.assignment({ name: 'api' })?.strategy, {
    requestsPerTimeUnit: { requests: 3, unit: 'MINUTE' },
  });
  assert.equal(client.assignment({ name: 'api' })?.ttlMs, 3_600_000);

  // Three requests a minute, counted in the client's own minute windows.
  now = Math.ceil(now / 60_000) * 60_000;
  assert.deepEqual(
    [1, 2, 3, 4].map(() => client.take({ name: 'api' })),
    [true, true, true, false],
  );
  now += 60_000;
  assert.equal(client.take({ name: 'api' }), true);
  // The token bucket starts full (burst 2) and refills one token a second.
  assert.deepEqual(
    [1, 2, 3].map(() => client.take({ name: 'tb' })),
    [true, true, false],
  );
  now += 1000;
  assert.equal(client.take({ name: 'tb' }), true);
  // Past its time to live the assignment no longer holds, and requests go by the default.
  now += 3_600_000;
  assert.equal(client.assignment({ name: 'api' }), undefined);
  assert.deepEqual(
    [1, 2, 3, 4].map(() => client.take({ name: 'api' })),
    [true, true, true, true],
  );
});
