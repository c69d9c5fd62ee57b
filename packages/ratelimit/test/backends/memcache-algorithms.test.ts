import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceSkip, startMemcached } from '@platform/testkit';
import { STAT } from '../../src/stats/names.js';
import { counter, request, startTestServer } from '../helpers/server.js';
import { eventually } from './helpers.js';
import { memcacheTtl, memcacheValue } from './memcache-client.js';

const skip = serviceSkip('memcached', 'memcached');
const NOW = 1_700_000_010; // a multiple of 30 s

test('Memcached: a fixed window of 30 s (unit_multiplier) keys its 30 s window start and lives as long', {
  skip,
}, async () => {
  const node = await startMemcached();
  const t = await startTestServer(
    {
      'mc.yaml': `domain: mc
descriptors:
  - key: report
    rate_limit: {unit: second, unit_multiplier: 30, requests_per_unit: 2}
`,
    },
    { BACKEND_TYPE: 'memcache', MEMCACHE_HOST_PORT: node.address, EXPIRATION_JITTER_MAX_SECONDS: '0' },
    { startAt: NOW + 7 },
  );
  const start = Math.floor((NOW + 7) / 30) * 30;
  const key = `mc_report_r_${start}`;
  try {
    const codes: unknown[] = [];
    for (let i = 1; i <= 3; i++) {
      const response = await t.client.shouldRateLimit(request('mc', ['report=r']));
      codes.push(response.overallCode);
      await eventually(async () => (await memcacheValue(node.port, key)) === String(i));
    }
    assert.deepEqual(codes, ['OK', 'OK', 'OVER_LIMIT']);
    const ttl = (await memcacheTtl(node.port, key)) as number;
    assert.ok(ttl <= 30 && ttl >= 28, `TTL ${ttl}, the 30 s window`);
  } finally {
    await t.stop();
    await node.stop();
  }
});

test('Memcached: a config with a sliding window or a token bucket is refused at load, naming the backend', {
  skip,
}, async () => {
  const node = await startMemcached();
  const t = await startTestServer(
    {
      'mc.yaml': `domain: mc
descriptors:
  - key: user
    rate_limit: {unit: minute, requests_per_unit: 2, algorithm: token_bucket}
`,
    },
    {
      BACKEND_TYPE: 'memcache',
      MEMCACHE_HOST_PORT: node.address,
      FORCE_START_WITHOUT_INITIAL_CONFIG: 'true',
    },
    { startAt: NOW },
  );
  try {
    await eventually(() => counter(t.server, STAT.configLoadError) === 1);
    assert.equal(counter(t.server, STAT.configLoadSuccess), 0);
    await assert.rejects(
      t.client.shouldRateLimit(request('mc', ['user=u'])),
      /no rate limit configuration loaded/,
    );
  } finally {
    await t.stop();
    await node.stop();
  }
});
