import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createRedisStore, readRedisSettings } from '../../src/backends/redis/index.js';
import { SettingsError } from '../../src/errors.js';
import { recordingDeps } from './helpers.js';

function settingsError(env: NodeJS.ProcessEnv, setting: string, message: RegExp): void {
  assert.throws(
    () => readRedisSettings(env),
    (error: unknown) => {
      assert.ok(error instanceof SettingsError, `expected a SettingsError, got ${String(error)}`);
      assert.equal(error.setting, setting);
      assert.match(error.message, message);
      return true;
    },
  );
}

describe('readRedisSettings', () => {
  test('defaults: tcp, single, 127.0.0.1:6379, pool 10 CREATE after 1s, timeout 10s, explicit pipelining', () => {
    const settings = readRedisSettings({});
    assert.equal(settings.url, '127.0.0.1:6379');
    assert.equal(settings.perSecond, undefined);
    assert.equal(settings.healthCheckActiveConnection, false);
    assert.deepEqual(
      { ...settings.main, tls: undefined },
      {
        label: 'REDIS',
        socketType: 'tcp',
        type: 'single',
        url: '127.0.0.1:6379',
        nodes: [{ host: '127.0.0.1', port: 6379 }],
        tls: undefined,
        poolSize: 10,
        poolOnEmptyBehavior: 'CREATE',
        poolOnEmptyWaitMs: 1000,
        timeoutMs: 10_000,
        pipelineWindowMs: 0,
        pipelineLimit: 0,
      },
    );
    assert.deepEqual(settings.main.tls, { enabled: false, skipHostnameVerification: false });
  });

  test('KVSTORE_* aliases are read, and the REDIS_* spelling wins when both are set', () => {
    const settings = readRedisSettings({
      KVSTORE_URL: '10.0.0.1:7000',
      KVSTORE_POOL_SIZE: '3',
      REDIS_POOL_SIZE: '4',
      KVSTORE_TIMEOUT: '250ms',
      KVSTORE_HEALTH_CHECK_ACTIVE_CONNECTION: 'true',
      KVSTORE_PERSECOND: 'true',
      KVSTORE_PERSECOND_URL: '10.0.0.2:7001',
      KVSTORE_PERSECOND_POOL_ON_EMPTY_BEHAVIOR: 'wait',
    });
    assert.deepEqual(settings.main.nodes, [{ host: '10.0.0.1', port: 7000 }]);
    assert.equal(settings.main.poolSize, 4);
    assert.equal(settings.main.timeoutMs, 250);
    assert.equal(settings.healthCheckActiveConnection, true);
    assert.equal(settings.perSecond?.label, 'REDIS_PERSECOND');
    assert.deepEqual(settings.perSecond?.nodes, [{ host: '10.0.0.2', port: 7001 }]);
    assert.equal(settings.perSecond?.poolOnEmptyBehavior, 'WAIT');
  });

  test('REDIS_TYPE is case-insensitive; sentinel takes the master name first; cluster needs pipelining', () => {
    const sentinel = readRedisSettings({
      REDIS_TYPE: 'Sentinel',
      REDIS_URL: 'mymaster,127.0.0.1:26379,127.0.0.1:26380',
      REDIS_SENTINEL_AUTH: 'sentinel-user:s3cret',
      REDIS_AUTH: 'data-pass',
    });
    assert.equal(sentinel.main.type, 'sentinel');
    assert.equal(sentinel.main.sentinelMasterName, 'mymaster');
    assert.equal(sentinel.main.nodes.length, 2);
    assert.deepEqual(sentinel.main.sentinelAuth, { username: 'sentinel-user', password: 's3cret' });
    assert.deepEqual(sentinel.main.auth, { password: 'data-pass' });

    const cluster = readRedisSettings({
      REDIS_TYPE: 'CLUSTER',
      REDIS_URL: '127.0.0.1:7000,127.0.0.1:7001',
      REDIS_PIPELINE_WINDOW: '150us',
      REDIS_PIPELINE_LIMIT: '8',
    });
    assert.equal(cluster.main.type, 'cluster');
    assert.equal(cluster.main.pipelineWindowMs, 0.15);
    assert.equal(cluster.main.pipelineLimit, 8);
  });

  test('a password with colons keeps everything after the first colon', () => {
    const settings = readRedisSettings({ REDIS_AUTH: 'alice:pa:ss' });
    assert.deepEqual(settings.main.auth, { username: 'alice', password: 'pa:ss' });
  });

  test('unix sockets take the path as the URL', () => {
    const settings = readRedisSettings({ REDIS_SOCKET_TYPE: 'UNIX', REDIS_URL: '/run/redis.sock' });
    assert.equal(settings.main.socketType, 'unix');
    assert.equal(settings.main.socketPath, '/run/redis.sock');
  });

  test('an unknown pool on-empty behaviour is logged and treated as CREATE, like the reference', async () => {
    const settings = readRedisSettings({ REDIS_POOL_ON_EMPTY_BEHAVIOR: 'PANIC' });
    assert.equal(settings.main.poolOnEmptyBehavior, 'CREATE');
    const warning = "REDIS_POOL_ON_EMPTY_BEHAVIOR: unknown pool on-empty behavior 'PANIC', using CREATE";
    assert.deepEqual(settings.warnings, [warning]);
    const deps = recordingDeps();
    const store = createRedisStore(settings, deps, 0);
    await store.close();
    assert.deepEqual(deps.logged, [`warn: ${warning}`]);
  });

  test('invalid values fail with a SettingsError naming the variable', () => {
    settingsError({ REDIS_TYPE: 'ring' }, 'REDIS_TYPE', /Unrecognized redis type ring/);
    settingsError({ KVSTORE_TYPE: 'ring' }, 'KVSTORE_TYPE', /Unrecognized redis type ring/);
    settingsError(
      { REDIS_TYPE: 'cluster', REDIS_URL: '127.0.0.1:7000' },
      'REDIS_PIPELINE_WINDOW',
      /^REDIS_PIPELINE_WINDOW: Implicit Pipelining must be enabled to work with Redis Cluster Mode\. Set values for REDIS_PIPELINE_WINDOW or REDIS_PIPELINE_LIMIT to enable implicit pipelining$/,
    );
    settingsError(
      { REDIS_TYPE: 'sentinel', REDIS_URL: 'mymaster' },
      'REDIS_URL',
      /Expected master name and a list of urls for the sentinels, in the format: <redis master name>,<sentinel1>,...,<sentineln>/,
    );
    settingsError({ REDIS_URL: 'localhost' }, 'REDIS_URL', /'localhost' is not a host:port address/);
    settingsError({ REDIS_URL: '127.0.0.1:99999' }, 'REDIS_URL', /is not a host:port address/);
    settingsError({ REDIS_SOCKET_TYPE: 'udp' }, 'REDIS_SOCKET_TYPE', /'udp' is not a socket type/);
    settingsError({ REDIS_POOL_SIZE: '0' }, 'REDIS_POOL_SIZE', /'0' is not an integer between 1 and 1000000/);
    settingsError({ REDIS_POOL_SIZE: 'ten' }, 'REDIS_POOL_SIZE', /is not an integer between/);
    settingsError({ REDIS_TIMEOUT: '10' }, 'REDIS_TIMEOUT', /'10' is not a duration/);
    settingsError({ REDIS_TLS: 'yes' }, 'REDIS_TLS', /'yes' is not a boolean/);
    settingsError({ REDIS_TLS_CLIENT_CERT: '/c.pem' }, 'REDIS_TLS_CLIENT_KEY', /needs both/);
    settingsError(
      { REDIS_PERSECOND: 'true', REDIS_PERSECOND_TYPE: 'cluster', REDIS_PERSECOND_URL: '127.0.0.1:1' },
      'REDIS_PERSECOND_PIPELINE_WINDOW',
      /Implicit Pipelining must be enabled/,
    );
  });
});
