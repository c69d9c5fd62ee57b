import assert from 'node:assert/strict';
import { test } from 'node:test';
import { startChildServer } from './helpers/child-server.js';
import { request, startTestServer } from './helpers/server.js';

const PER_VALUE =
  'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 1 }\n';

test('a client over its limit cannot reset it by flooding the memory store with new keys', async (t) => {
  const server = await startTestServer({ 'd.yaml': PER_VALUE }, { MEMORY_MAX_COUNTERS: '1000' });
  t.after(() => server.stop());
  const victim = request('d', ['k=victim']);
  assert.equal((await server.client.shouldRateLimit(victim)).overallCode, 'OK');
  assert.equal((await server.client.shouldRateLimit(victim)).overallCode, 'OVER_LIMIT');
  for (let round = 0; round < 50; round++) {
    const flood = Array.from({ length: 100 }, (_, i) => [`k=flood-${round}-${i}`]);
    await server.client.shouldRateLimit(request('d', ...flood));
    assert.equal((await server.client.shouldRateLimit(victim)).overallCode, 'OVER_LIMIT', `round ${round}`);
  }
});

test('MEMORY_MAX_BYTES: 200 distinct 1 MB descriptor values do not grow the process by their size', async (t) => {
  // A heap limit makes the garbage of the bodies collected before the heap grows past it; the
  // counters alone, unbounded, would not fit.
  const server = await startChildServer(
    { 'd.yaml': PER_VALUE },
    { MEMORY_MAX_BYTES: String(16 * 1024 * 1024), NODE_OPTIONS: '--max-old-space-size=160' },
  );
  t.after(() => server.stop());
  const url = `http://127.0.0.1:${server.ports.http}/json`;
  const send = (value: string) =>
    fetch(url, {
      method: 'POST',
      body: JSON.stringify({ domain: 'd', descriptors: [{ entries: [{ key: 'k', value }] }] }),
    }).then((response) => response.text());
  const megabyte = 'v'.repeat(1024 * 1024);
  for (let i = 0; i < 10; i++) await send(`warm${i}${megabyte}`);
  const before = await server.rss();
  for (let i = 0; i < 200; i++) await send(`${i}${megabyte}`);
  const grown = (await server.rss()) - before;
  t.diagnostic(`RSS before ${before >> 20} MiB, grown by ${grown >> 20} MiB`);
  // Unbounded, the 200 keys alone are 200 MB; bounded, what is left is garbage the GC has not returned.
  assert.ok(grown < 100 * 1024 * 1024, `RSS grew by ${grown >> 20} MiB`);
});
