import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  findLimit,
  InProcessRateLimiter,
  parseConfig,
  type RateLimitDecision,
  RemoteRateLimiter,
} from '@platform/ratelimit';
import { ManualClock, startTestServer, type TestServer } from './helpers/server.js';

const CONFIG = {
  name: 'config.books.yaml',
  yaml: `
domain: books
descriptors:
  - key: user
    rate_limit:
      unit: minute
      requests_per_unit: 3
  - key: user
    value: vip
    rate_limit:
      unlimited: true
`,
};

const user = (id: string) => [{ entries: [{ key: 'user', value: id }] }];
const codes = (decision: RateLimitDecision) => decision.descriptors.map((d) => d.code);

describe('the library entry point (@platform/ratelimit)', () => {
  test('parseConfig validates as the service does; findLimit matches as the service does', () => {
    const config = parseConfig([CONFIG]);
    assert.deepEqual(findLimit(config, 'books', [{ key: 'user', value: 'alice' }]), {
      name: '',
      requestsPerUnit: 3,
      unit: 'MINUTE',
      unlimited: false,
    });
    assert.equal(findLimit(config, 'books', [{ key: 'user', value: 'vip' }])?.unlimited, true);
    assert.equal(findLimit(config, 'books', [{ key: 'team', value: 'x' }]), undefined);
    assert.equal(findLimit(config, 'other', [{ key: 'user', value: 'x' }]), undefined);
    assert.throws(
      () => parseConfig([{ name: 'config.bad.yaml', yaml: 'domain: x\nratelimit: 1\n' }]),
      /config\.bad\.yaml: config error, unknown key 'ratelimit'/,
    );
  });

  test('InProcessRateLimiter counts per descriptor value on the memory store, with the window from the clock', async () => {
    const clock = new ManualClock(1_700_000_080);
    const limiter = new InProcessRateLimiter({ config: [CONFIG], clock: clock.now });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await limiter.shouldRateLimit('books', user('alice')));
      assert.deepEqual(
        answers.map((a) => [a.overLimit, a.descriptors[0]?.remaining]),
        [
          [false, 2],
          [false, 1],
          [false, 0],
          [true, 0],
        ],
      );
      assert.deepEqual(answers[0]?.descriptors[0]?.limit, { name: '', requestsPerUnit: 3, unit: 'MINUTE' });
      assert.equal(answers[0]?.descriptors[0]?.resetSeconds, 20, 'the minute window ends at :00');
      assert.deepEqual(codes(await limiter.shouldRateLimit('books', user('bob'))), ['OK'], 'per user');
      const vip = await limiter.shouldRateLimit('books', user('vip'));
      assert.equal(vip.descriptors[0]?.limit, undefined, 'unlimited counts nothing');
      clock.seconds += 20;
      assert.equal((await limiter.shouldRateLimit('books', user('alice'))).overLimit, false, 'a new window');
      await assert.rejects(limiter.shouldRateLimit('', user('alice')), /domain must not be empty/);
    } finally {
      await limiter.close();
    }
  });

  describe('RemoteRateLimiter against a running service', () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer({ 'config.books.yaml': CONFIG.yaml });
    });
    after(() => server?.stop());

    test('asks ShouldRateLimit over gRPC and gives the same decision type', async () => {
      const limiter = new RemoteRateLimiter(`127.0.0.1:${server.server.ports.grpc}`, { timeoutMs: 5000 });
      try {
        const answers = [];
        for (let i = 0; i < 4; i++) answers.push(await limiter.shouldRateLimit('books', user('carol')));
        assert.deepEqual(
          answers.map((a) => a.overLimit),
          [false, false, false, true],
        );
        assert.deepEqual(answers[0]?.descriptors[0]?.limit, { name: '', requestsPerUnit: 3, unit: 'MINUTE' });
        assert.equal(answers[3]?.descriptors[0]?.remaining, 0);
        assert.equal(typeof answers[3]?.descriptors[0]?.resetSeconds, 'number');
      } finally {
        await limiter.close();
      }
    });

    test('rejects when nothing answers, within the deadline', async () => {
      const limiter = new RemoteRateLimiter('127.0.0.1:1', { timeoutMs: 300 });
      try {
        await assert.rejects(limiter.shouldRateLimit('books', user('dave')));
      } finally {
        await limiter.close();
      }
    });
  });
});
