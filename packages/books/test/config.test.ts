import assert from 'node:assert/strict';
import { resolve } from 'node:path';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../src/config.js';

function rejects(env: NodeJS.ProcessEnv, message: RegExp) {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.code, 'BOOKS_CONFIG_INVALID');
      assert.match(error.message, message);
      return true;
    },
  );
}

test('defaults apply when the environment is empty', () => {
  const config = loadConfig({});
  assert.equal(config.port, 3000);
  assert.equal(config.host, '127.0.0.1');
  assert.equal(config.publicBaseUrl, undefined);
  assert.equal(config.trustProxy, false);
  assert.deepEqual(config.database, { driver: 'pglite', dataDir: resolve('data/pglite') });
  assert.deepEqual(config.adminEmails, []);
  assert.equal(config.session.idleTimeoutMs, 30 * 60_000);
  assert.equal(config.session.secretIsDevelopmentDefault, true);
  assert.equal(config.production, false);
  assert.equal(config.logLevel, 'info');
});

test('PUBLIC_BASE_URL is normalised without a trailing slash', () => {
  assert.equal(
    loadConfig({ PUBLIC_BASE_URL: 'https://books.example/' }).publicBaseUrl,
    'https://books.example',
  );
  assert.equal(
    loadConfig({ PUBLIC_BASE_URL: 'https://x.example/api/' }).publicBaseUrl,
    'https://x.example/api',
  );
});

test('invalid values name the setting', () => {
  rejects({ PORT: 'eighty' }, /invalid PORT 'eighty'/);
  rejects({ PUBLIC_BASE_URL: 'ftp://x' }, /invalid PUBLIC_BASE_URL/);
  rejects({ PUBLIC_BASE_URL: 'https://x.example/?a=1' }, /must not carry a query/);
  rejects({ TRUST_PROXY: 'maybe' }, /invalid TRUST_PROXY 'maybe'/);
  rejects({ ADMIN_EMAILS: 'admin@example.com, not-an-email' }, /invalid ADMIN_EMAILS entry 'not-an-email'/);
  rejects({ SESSION_IDLE_TIMEOUT: 'soon' }, /invalid SESSION_IDLE_TIMEOUT 'soon'/);
  rejects({ SESSION_IDLE_TIMEOUT: '10ms' }, /at least 1s/);
  rejects({ SESSION_SECRET: 'short' }, /at least 32 characters/);
  rejects({ LOG_LEVEL: 'loud' }, /invalid LOG_LEVEL 'loud'/);
  rejects(
    { LINGERING_CLOSE_TIME: '5ms' },
    /invalid LINGERING_CLOSE_TIME '5ms': expected a duration of at least 10ms/,
  );
  rejects({ LINGERING_CLOSE_BYTES: '-1' }, /invalid LINGERING_CLOSE_BYTES '-1': expected an integer from 0/);
  rejects({ LINGERING_CLOSE_BYTES: '1MB' }, /invalid LINGERING_CLOSE_BYTES '1MB'/);
  rejects({ DB_POOL_MAX: '0', DATABASE_URL: 'postgres://u:p@127.0.0.1/db' }, /invalid DB_POOL_MAX '0'/);
});

test('DATABASE_URL selects the driver; credentials never appear in errors', () => {
  assert.deepEqual(loadConfig({ DATABASE_URL: 'pglite:memory' }).database, {
    driver: 'pglite',
    dataDir: undefined,
  });
  assert.deepEqual(loadConfig({ DATABASE_URL: 'pglite:///tmp/books' }).database, {
    driver: 'pglite',
    dataDir: '/tmp/books',
  });
  assert.deepEqual(
    loadConfig({ DATABASE_URL: 'postgres://u:p@127.0.0.1:5432/db', DB_POOL_MAX: '5' }).database,
    {
      driver: 'postgres',
      url: 'postgres://u:p@127.0.0.1:5432/db',
      poolMax: 5,
    },
  );
  assert.throws(
    () => loadConfig({ DATABASE_URL: 'mysql://user:secret@host/db' }),
    (error: unknown) => error instanceof ConfigError && !error.message.includes('secret'),
  );
});

test('ADMIN_EMAILS is a case-insensitive comma-separated list', () => {
  assert.deepEqual(loadConfig({ ADMIN_EMAILS: ' Admin@Example.com,,ops@example.com ' }).adminEmails, [
    'admin@example.com',
    'ops@example.com',
  ]);
});

test('the lingering close bounds: 5 s and 32 MiB unless set', () => {
  assert.deepEqual(loadConfig({}).lingeringClose, { timeMs: 5000, bytes: 32 * 1024 * 1024 });
  assert.deepEqual(loadConfig({ LINGERING_CLOSE_TIME: '250ms', LINGERING_CLOSE_BYTES: '0' }).lingeringClose, {
    timeMs: 250,
    bytes: 0,
  });
});

test('SESSION_IDLE_TIMEOUT takes units; a bare number is seconds', () => {
  assert.equal(loadConfig({ SESSION_IDLE_TIMEOUT: '45m' }).session.idleTimeoutMs, 45 * 60_000);
  assert.equal(loadConfig({ SESSION_IDLE_TIMEOUT: '90' }).session.idleTimeoutMs, 90_000);
  assert.equal(loadConfig({ SESSION_IDLE_TIMEOUT: '2h' }).session.idleTimeoutMs, 7_200_000);
});

test('production refuses to start without SESSION_SECRET', () => {
  rejects({ NODE_ENV: 'production' }, /SESSION_SECRET is required when NODE_ENV=production/);
  const config = loadConfig({ NODE_ENV: 'production', SESSION_SECRET: 's'.repeat(32) });
  assert.equal(config.production, true);
  assert.equal(config.session.secretIsDevelopmentDefault, false);
});

test('rate limits: 600 a minute in process by default, 0 off, RATE_LIMIT_SERVICE remote; bad values are named', () => {
  assert.deepEqual(loadConfig({}).rateLimit, { mode: 'in-process', perMinute: 600 });
  assert.deepEqual(loadConfig({ RATE_LIMIT_PER_MINUTE: '0' }).rateLimit, { mode: 'off' });
  assert.deepEqual(loadConfig({ RATE_LIMIT_SERVICE: 'ratelimit.internal:8081' }).rateLimit, {
    mode: 'remote',
    address: 'ratelimit.internal:8081',
    timeoutMs: 200,
  });
  assert.deepEqual(loadConfig({ RATE_LIMIT_SERVICE: '[::1]:8081', RATE_LIMIT_TIMEOUT_MS: '50' }).rateLimit, {
    mode: 'remote',
    address: '[::1]:8081',
    timeoutMs: 50,
  });
  rejects({ RATE_LIMIT_PER_MINUTE: '-1' }, /invalid RATE_LIMIT_PER_MINUTE '-1'/);
  rejects({ RATE_LIMIT_PER_MINUTE: 'lots' }, /invalid RATE_LIMIT_PER_MINUTE 'lots'/);
  rejects({ RATE_LIMIT_SERVICE: 'ratelimit' }, /invalid RATE_LIMIT_SERVICE 'ratelimit': expected host:port/);
  rejects({ RATE_LIMIT_SERVICE: 'host:99999' }, /invalid RATE_LIMIT_SERVICE 'host:99999'/);
  rejects({ RATE_LIMIT_SERVICE: 'h:1', RATE_LIMIT_TIMEOUT_MS: '0' }, /invalid RATE_LIMIT_TIMEOUT_MS '0'/);
  rejects({ PICKUP_DAYS: '0' }, /invalid PICKUP_DAYS '0'/);
});

test('LOAN_DAYS and MAX_RENEWALS: 21 days and 2 renewals by default, in range or named', () => {
  assert.equal(loadConfig({}).reservations.loanMs, 21 * 86_400_000);
  assert.equal(loadConfig({}).reservations.maxRenewals, 2);
  assert.equal(loadConfig({ LOAN_DAYS: '14' }).reservations.loanMs, 14 * 86_400_000);
  assert.equal(loadConfig({ MAX_RENEWALS: '0' }).reservations.maxRenewals, 0);
  rejects({ LOAN_DAYS: '0' }, /invalid LOAN_DAYS '0': expected an integer from 1 to 365/);
  rejects({ LOAN_DAYS: '2w' }, /invalid LOAN_DAYS '2w'/);
  rejects({ MAX_RENEWALS: '-1' }, /invalid MAX_RENEWALS '-1': expected an integer from 0 to 100/);
});

test('PGLITE_THREAD: a worker thread by default, the server thread on request; anything else is named', () => {
  assert.equal(loadConfig({}).pgliteThread, 'worker');
  assert.equal(loadConfig({ PGLITE_THREAD: 'worker' }).pgliteThread, 'worker');
  assert.equal(loadConfig({ PGLITE_THREAD: 'main' }).pgliteThread, 'main');
  rejects({ PGLITE_THREAD: 'both' }, /invalid PGLITE_THREAD 'both': expected worker or main/);
});

test('notices: the development mailbox unless SMTP_URL; DUE_SOON_DAYS 3; retries 30 s doubling to 1 h, 8 attempts; bad values named, no password echoed', () => {
  const defaults = loadConfig({}).notices;
  assert.equal(defaults.smtpUrl, undefined);
  assert.equal(defaults.dueSoonMs, 3 * 86_400_000);
  assert.deepEqual(
    [defaults.delivery.retryBaseMs, defaults.delivery.retryMaxMs, defaults.delivery.maxAttempts],
    [30_000, 3_600_000, 8],
  );
  assert.equal(defaults.delivery.leaseMs, 120_000);
  assert.equal(
    loadConfig({ SMTP_URL: 'smtps://u:p@mail.example:465' }).notices.smtpUrl,
    'smtps://u:p@mail.example:465',
  );
  assert.equal(loadConfig({ DUE_SOON_DAYS: '5' }).notices.dueSoonMs, 5 * 86_400_000);
  assert.throws(
    () => loadConfig({ SMTP_URL: 'https://user:secret@mail.example' }),
    (error: Error) =>
      /invalid SMTP_URL: expected smtp:/.test(error.message) && !error.message.includes('secret'),
  );
  rejects({ DUE_SOON_DAYS: '0' }, /invalid DUE_SOON_DAYS '0'/);
  rejects({ NOTICE_MAX_ATTEMPTS: '0' }, /invalid NOTICE_MAX_ATTEMPTS '0': expected an integer from 1 to 100/);
  rejects(
    { NOTICE_RETRY_BASE: '10m', NOTICE_RETRY_MAX: '1m' },
    /invalid NOTICE_RETRY_MAX '1m': it must be at least NOTICE_RETRY_BASE/,
  );
});
