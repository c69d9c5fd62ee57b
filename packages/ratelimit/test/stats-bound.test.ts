import assert from 'node:assert/strict';
import { test } from 'node:test';
import { counter, request, startTestServer } from './helpers/server.js';

const CONFIG = {
  'd.yaml': `domain: d
descriptors:
  - key: detailed
    detailed_metric: true
    rate_limit: { unit: minute, requests_per_unit: 5 }
  - key: plain
    rate_limit: { unit: minute, requests_per_unit: 5 }
`,
};

const ROOT = 'ratelimit.service.rate_limit.';

test('STATS_MAX_PER_VALUE_KEYS bounds the stat keys made from request values; the rest add up under per_value_overflow', async (t) => {
  const server = await startTestServer(CONFIG, { STATS_MAX_PER_VALUE_KEYS: '50' });
  t.after(() => server.stop());
  // A flood of unique values on a detailed_metric rule, and of unknown domains.
  for (let round = 0; round < 10; round++) {
    const values = Array.from({ length: 30 }, (_, i) => [`detailed=v${round}-${i}`]);
    await server.client.shouldRateLimit(request('d', ...values));
    await server.client.shouldRateLimit(request(`nope${round}`, ['k=v']));
  }
  // The config's own keys are never refused, however full the bound is.
  await server.client.shouldRateLimit(request('d', ['plain=x']));

  const names = [...server.server.stats.snapshot().counters.keys()];
  const perValue = names.filter(
    (name) => name.startsWith(`${ROOT}d.detailed_`) || /^ratelimit\.service\.rate_limit\.nope\d/.test(name),
  );
  // 50 keys: six counters each for a detailed value, one for an unknown domain.
  assert.ok(perValue.length <= 50 * 6, `${perValue.length} per-value stat names`);
  assert.equal(counter(server.server, `${ROOT}d.plain.total_hits`), 1);
  const overflowHits = counter(server.server, `${ROOT}per_value_overflow.total_hits`);
  const keptHits = names
    .filter((name) => name.startsWith(`${ROOT}d.detailed_`) && name.endsWith('.total_hits'))
    .reduce((sum, name) => sum + counter(server.server, name), 0);
  assert.equal(keptHits + overflowHits, 300, 'no hit is lost: kept and overflowed add up');
  assert.ok(overflowHits > 0);
  assert.ok(counter(server.server, 'ratelimit.stats.per_value_overflow') > 0);
  const notFound = names
    .filter((name) => /^ratelimit\.service\.rate_limit\.nope\d+\.domain_not_found$/.test(name))
    .reduce((sum, name) => sum + counter(server.server, name), 0);
  assert.equal(notFound + counter(server.server, `${ROOT}per_value_overflow.domain_not_found`), 10);
});
