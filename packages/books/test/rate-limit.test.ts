import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { freePort } from '@platform/testkit';
import { ApiClient } from './support/client.js';
import { type RateLimitProcess, startRateLimitProcess } from './support/ratelimit-process.js';
import { type Driver, postgresSkip, startTestService, type TestService } from './support/service.js';
import { createTestSession } from './support/test-sessions.js';

/** Log lines the service wrote, parsed (pino JSON), for the fail-open warning. */
function capturedLog() {
  const lines: { level: number; msg: string; allowedWithoutLimit?: number }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logger: { level: 'info', stream } };
}

function inProcessSuite(driver: Driver, skip: false | string) {
  describe(`per-user rate limits in process (${driver})`, { skip }, () => {
    let service: TestService;
    before(async () => {
      service = await startTestService(driver, { env: { RATE_LIMIT_PER_MINUTE: '3' } });
      // Ten seconds into a minute, so the window ends in 50 s.
      service.clock.nowMs = Math.floor(service.clock.nowMs / 60_000) * 60_000 + 10_000;
    });
    after(() => service?.close());

    test('each user gets RATE_LIMIT_PER_MINUTE calls a minute, counted down in RateLimit-* headers; then 429', async () => {
      const api = new ApiClient(service.url);
      const alice = await createTestSession(service);
      const bob = await createTestSession(service);
      const seen = [];
      for (let i = 0; i < 3; i++) {
        const response = await api.get('/books', { session: alice });
        assert.equal(response.status, 200);
        seen.push([
          response.headers.get('ratelimit-limit'),
          response.headers.get('ratelimit-remaining'),
          response.headers.get('ratelimit-reset'),
        ]);
      }
      assert.deepEqual(seen, [
        ['3', '2', '50'],
        ['3', '1', '50'],
        ['3', '0', '50'],
      ]);
      // Every authenticated operation counts, whatever its outcome.
      const refused = await api.post('/books', {
        session: alice,
        body: { title: 'x', author: 'y', synopsis: 'z' },
      });
      assert.equal(refused.status, 429);
      assert.equal(refused.headers.get('content-type'), 'application/problem+json; charset=utf-8');
      assert.equal(refused.body.code, 'RATE_LIMITED');
      assert.equal(refused.headers.get('retry-after'), '50');
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
      assert.equal((await api.get('/me', { session: bob })).status, 200, 'another user has their own count');
      const anonymous = await api.get('/books');
      assert.equal(anonymous.status, 401, 'anonymous calls are refused before any counting');
      assert.equal(anonymous.headers.get('ratelimit-limit'), null);

      service.clock.advance(50_000);
      const nextMinute = await api.get('/books', { session: alice });
      assert.equal(nextMinute.status, 200, 'a new window');
      assert.equal(nextMinute.headers.get('ratelimit-remaining'), '2');
    });

    test('RATE_LIMIT_PER_MINUTE=0 turns the limit off', async () => {
      const unlimited = await startTestService(driver, { env: { RATE_LIMIT_PER_MINUTE: '0' } });
      try {
        const api = new ApiClient(unlimited.url);
        const user = await createTestSession(unlimited);
        for (let i = 0; i < 5; i++) {
          const response = await api.get('/me', { session: user });
          assert.equal(response.status, 200);
          assert.equal(response.headers.get('ratelimit-limit'), null);
        }
      } finally {
        await unlimited.close();
      }
    });
  });
}

const BOOKS_DOMAIN = `
domain: books
descriptors:
  - key: user
    rate_limit:
      unit: hour
      requests_per_unit: 2
`;

/** Readiness over HTTP: 200 and UP (the rate limit service is not one of its checks). */
async function assertReady(url: string): Promise<void> {
  const response = await fetch(`${url}/actuator/health/readiness`);
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), { status: 'UP' });
}

describe('per-user rate limits on a real ratelimit process (RATE_LIMIT_SERVICE)', () => {
  let ratelimit: RateLimitProcess;
  before(async () => {
    ratelimit = await startRateLimitProcess({ 'config.books.yaml': BOOKS_DOMAIN });
  });
  after(() => ratelimit?.stop());

  test('the service counts per user with domain books and descriptor user=<id>, and produces the 429', async () => {
    const service = await startTestService('pglite', {
      env: { RATE_LIMIT_SERVICE: ratelimit.grpcAddress, RATE_LIMIT_TIMEOUT_MS: '5000' },
    });
    try {
      const api = new ApiClient(service.url);
      const alice = await createTestSession(service);
      const bob = await createTestSession(service);
      const first = await api.get('/me', { session: alice });
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('ratelimit-limit'), '2', 'the limit comes from the service config');
      assert.equal(first.headers.get('ratelimit-remaining'), '1');
      assert.ok(Number(first.headers.get('ratelimit-reset')) > 0);
      assert.equal((await api.get('/books', { session: alice })).status, 200);
      const third = await api.get('/books', { session: alice });
      assert.equal(third.status, 429);
      assert.equal(third.body.code, 'RATE_LIMITED');
      assert.ok(Number(third.headers.get('retry-after')) >= 1);
      assert.equal((await api.get('/books', { session: bob })).status, 200, 'bob is counted apart');
    } finally {
      await service.close();
    }
  });

  test('a service that never answered fails open: calls go through, one warning is logged, readiness is UP', async () => {
    const log = capturedLog();
    // A free port: nothing listens there.
    const service = await startTestService('pglite', {
      env: { RATE_LIMIT_SERVICE: `127.0.0.1:${await freePort()}`, RATE_LIMIT_TIMEOUT_MS: '300' },
      logger: log.logger,
    });
    try {
      const api = new ApiClient(service.url);
      const user = await createTestSession(service);
      for (let i = 0; i < 3; i++) {
        const response = await api.get('/me', { session: user });
        assert.equal(response.status, 200);
        assert.equal(response.headers.get('ratelimit-limit'), null);
      }
      const warnings = log.lines.filter((line) => line.msg.includes('fail open'));
      assert.equal(warnings.length, 1, 'warned once, not per request');
      assert.equal(warnings[0]?.level, 40);
      await assertReady(service.url);
    } finally {
      await service.close();
    }
  });

  // The last test of this block: it kills the block's one ratelimit process (a second process just to
  // kill would cost a whole start of one). Its limit of 2 a user makes the point sharper: after the kill,
  // more calls than the limit go through.
  test('a service killed mid-run: calls go through unlimited, a warning at most once a minute, readiness stays UP', async () => {
    const log = capturedLog();
    const service = await startTestService('pglite', {
      env: { RATE_LIMIT_SERVICE: ratelimit.grpcAddress, RATE_LIMIT_TIMEOUT_MS: '5000' },
      logger: log.logger,
    });
    try {
      const api = new ApiClient(service.url);
      const user = await createTestSession(service);
      const counted = await api.get('/books', { session: user });
      assert.equal(counted.status, 200);
      assert.equal(counted.headers.get('ratelimit-remaining'), '1', 'counted by the running service');
      await assertReady(service.url);

      await ratelimit.stop();
      const failOpen = () => log.lines.filter((line) => line.msg.includes('fail open'));
      for (let i = 0; i < 5; i++) {
        const response = await api.get('/books', { session: user });
        assert.equal(response.status, 200, 'allowed while the service is down');
        assert.equal(response.headers.get('ratelimit-limit'), null, 'no limit to report');
      }
      assert.equal(failOpen().length, 1, 'one warning for the five calls, not one each');
      assert.equal(failOpen()[0]?.level, 40);
      assert.equal(failOpen()[0]?.allowedWithoutLimit, 1);
      await assertReady(service.url);

      // Still down a minute later: one more warning, counting the calls let through since the last.
      service.clock.advance(61_000);
      assert.equal((await api.get('/me', { session: user })).status, 200);
      assert.equal(failOpen().length, 2);
      assert.equal(failOpen()[1]?.allowedWithoutLimit, 5);
      assert.equal(log.lines.filter((line) => line.msg.includes('answers again')).length, 0);
      await assertReady(service.url);
    } finally {
      await service.close();
    }
  });
});

inProcessSuite('pglite', false);
inProcessSuite('postgres', postgresSkip());
