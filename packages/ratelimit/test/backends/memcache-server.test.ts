import assert from 'node:assert/strict';
import { test } from 'node:test';
import { serviceSkip, startMemcached } from '@platform/testkit';
import { request, startTestServer } from '../helpers/server.js';
import { eventually } from './helpers.js';
import { memcacheValue } from './memcache-client.js';

const NOW = 1_700_000_000;

test('the service with BACKEND_TYPE=objcache limits through memcached', {
  skip: serviceSkip('memcached', 'memcached'),
}, async () => {
  const node = await startMemcached();
  const t = await startTestServer(
    {
      'mc.yaml':
        'domain: mc\ndescriptors:\n  - key: user\n    rate_limit:\n      unit: minute\n      requests_per_unit: 2\n',
    },
    { BACKEND_TYPE: 'objcache', OBJCACHE_HOST_PORT: node.address, CACHE_KEY_PREFIX: 'pfx:' },
    { startAt: NOW },
  );
  const key = `pfx:mc_user_carol_${Math.floor(NOW / 60) * 60}`;
  try {
    const codes: unknown[] = [];
    for (let i = 1; i <= 3; i++) {
      const response = await t.client.shouldRateLimit(request('mc', ['user=carol']));
      codes.push(response.overallCode);
      // The increment runs after the answer: wait for it, so the next call reads the new count.
      await eventually(async () => (await memcacheValue(node.port, key)) === String(i));
    }
    assert.deepEqual(codes, ['OK', 'OK', 'OVER_LIMIT']);
  } finally {
    await t.stop();
    await node.stop();
  }
});
