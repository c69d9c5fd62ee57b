import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eventually, request, startTestServer, type TestServer } from './helpers/server.js';

const LISTING = `/debug/pprof/: root of various pprof endpoints. hit for help.
/debug/pprof/profile: CPU profiling endpoint
/debug/pprof/trace: trace endpoint
/rlconfig: print out the currently loaded configuration for debugging
/stats: print out stats
`;

describe('debug server', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({
      'a.yaml': `domain: foo
descriptors:
  - key: k1
    value: v1
    descriptors:
      - {key: k2, value: v2, rate_limit: {unit: hour, requests_per_unit: 15}}
  - {key: open, rate_limit: {unlimited: true}}
  - {key: quiet, shadow_mode: true, rate_limit: {unit: day, requests_per_unit: 1}}
`,
    });
  });
  after(() => t.stop());

  test('/ and any unknown path list the debug endpoints', async () => {
    assert.deepEqual(await t.get('debug', '/'), { status: 200, body: LISTING });
    assert.deepEqual(await t.get('debug', '/whatever'), { status: 200, body: LISTING });
  });

  test('/rlconfig prints one line per rule with a rate_limit', async () => {
    const lines = (await t.get('debug', '/rlconfig')).body.split('\n').filter(Boolean).sort();
    assert.deepEqual(lines, [
      'foo.k1_v1.k2_v2: unit=HOUR requests_per_unit=15, shadow_mode: false',
      'foo.open: unit=UNKNOWN requests_per_unit=0, shadow_mode: false',
      'foo.quiet: unit=DAY requests_per_unit=1, shadow_mode: true',
    ]);
  });

  test('/stats shows the rate limit counters', async () => {
    await t.client.shouldRateLimit(request('foo', ['k1=v1', 'k2=v2']));
    const body = (await t.get('debug', '/stats')).body;
    assert.match(body, /^ratelimit\.service\.rate_limit\.foo\.k1_v1\.k2_v2\.total_hits: 1$/m);
    assert.match(body, /^ratelimit\.service\.config_load_success: 1$/m);
    assert.match(body, /^ratelimit_server\.ShouldRateLimit\.total_requests: 1$/m);
  });

  test('/debug/pprof/ explains the profiles; profile, trace and heap download files', async () => {
    assert.match((await t.get('debug', '/debug/pprof/')).body, /\/debug\/pprof\/heap/);
    const port = t.server.ports.debug;
    const profile = await fetch(`http://127.0.0.1:${port}/debug/pprof/profile?seconds=0.2`);
    assert.equal(profile.headers.get('content-disposition'), 'attachment; filename="profile.cpuprofile"');
    assert.ok(Array.isArray(((await profile.json()) as { nodes: unknown }).nodes));
    const trace = await fetch(`http://127.0.0.1:${port}/debug/pprof/trace?seconds=0.1`);
    assert.ok(Array.isArray(((await trace.json()) as { traceEvents: unknown }).traceEvents));
    const heap = await fetch(`http://127.0.0.1:${port}/debug/pprof/heap`);
    assert.equal(heap.headers.get('content-disposition'), 'attachment; filename="heap.heapsnapshot"');
    assert.ok(((await heap.json()) as { snapshot: unknown }).snapshot);
  });

  test('a second profile while one runs is refused with 409', async () => {
    const port = t.server.ports.debug;
    const first = fetch(`http://127.0.0.1:${port}/debug/pprof/profile?seconds=3`);
    // On a busy machine the first request may arrive after a second one; ask until it runs.
    const statuses: number[] = [];
    await eventually(async () => {
      const second = await fetch(`http://127.0.0.1:${port}/debug/pprof/trace?seconds=0.05`);
      await second.arrayBuffer();
      statuses.push(second.status);
      return second.status === 409;
    }, 3000);
    assert.ok(
      statuses.every((code) => code === 200 || code === 409),
      String(statuses),
    );
    assert.equal((await first).status, 200);
  });
});
