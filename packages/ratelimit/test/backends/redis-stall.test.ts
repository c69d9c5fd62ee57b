import assert from 'node:assert/strict';
import { test } from 'node:test';
import { eventually, request } from '../helpers/server.js';
import { startServiceOnRedis } from './helpers.js';

const CONFIG = {
  'd.yaml':
    'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 100000 }\n',
};

for (const [pipelining, env] of [
  ['explicit pipelining', {}],
  ['implicit pipelining (REDIS_PIPELINE_WINDOW)', { REDIS_PIPELINE_WINDOW: '1ms' }],
] as const) {
  test(`${pipelining}: with Redis stalled (SIGSTOP), no call takes longer than REDIS_TIMEOUT plus a small margin`, async (t) => {
    // The stall lasts three timeouts of wall time, so 1 s (rather than 2) halves the test and
    // leaves what it shows as it was: no call outlasts the timeout by more than the margin.
    const timeoutMs = 1000;
    const { redis, t: server } = await startServiceOnRedis(
      CONFIG,
      { REDIS_TIMEOUT: '1s', ...env },
      1_700_000_000,
    );
    let stopped = false;
    t.after(async () => {
      if (stopped) process.kill(redis.process.pid, 'SIGCONT');
      await server.stop();
      await redis.stop();
    });
    assert.equal((await server.client.shouldRateLimit(request('d', ['k=a']))).overallCode, 'OK');

    process.kill(redis.process.pid, 'SIGSTOP');
    stopped = true;
    // Calls keep coming while Redis is stalled: the first ones wait on replies, later ones on a
    // pooled connection held by those, or on a new connection.
    const calls: Promise<{ ms: number; error: string }>[] = [];
    const started = performance.now();
    while (performance.now() - started < 3 * timeoutMs) {
      const callStarted = performance.now();
      calls.push(
        server.client.shouldRateLimit(request('d', ['k=a'])).then(
          () => ({ ms: performance.now() - callStarted, error: '' }),
          (error: Error) => ({ ms: performance.now() - callStarted, error: error.message }),
        ),
      );
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const results = await Promise.all(calls);
    process.kill(redis.process.pid, 'SIGCONT');
    stopped = false;

    const slowest = Math.max(...results.map((result) => result.ms));
    t.diagnostic(`${results.length} calls, slowest ${Math.round(slowest)} ms`);
    assert.ok(slowest < timeoutMs + 600, `a call took ${Math.round(slowest)} ms with REDIS_TIMEOUT=1s`);
    assert.ok(
      results.every((result) => result.error !== ''),
      'every call failed while Redis was stopped',
    );
    assert.match(results[0]?.error ?? '', /redis command timed out after 1000 ms/);
    // Redis back: calls succeed again.
    await eventually(async () => {
      const answer = await server.client.shouldRateLimit(request('d', ['k=a'])).catch(() => undefined);
      return answer?.overallCode === 'OK';
    }, 10_000);
  });
}
