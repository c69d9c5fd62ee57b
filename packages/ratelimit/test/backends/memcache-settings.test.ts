import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { isLegalKey, readMemcacheSettings } from '../../src/backends/memcache/index.js';
import { SettingsError } from '../../src/errors.js';

describe('readMemcacheSettings', () => {
  test('MEMCACHE_HOST_PORT list with the defaults (2 idle connections, no SRV refresh, no TLS)', () => {
    assert.deepEqual(readMemcacheSettings({ MEMCACHE_HOST_PORT: '127.0.0.1:11211, 127.0.0.1:11212' }), {
      hostPorts: ['127.0.0.1:11211', '127.0.0.1:11212'],
      srvRefreshMs: 0,
      maxIdleConns: 2,
      tls: { enabled: false, skipHostnameVerification: false },
    });
  });

  test('OBJCACHE_* aliases', () => {
    const settings = readMemcacheSettings({
      OBJCACHE_SRV: '_memcache._tcp.example.test',
      OBJCACHE_SRV_REFRESH: '1m',
      OBJCACHE_MAX_IDLE_CONNS: '5',
      OBJCACHE_TLS: 'true',
      OBJCACHE_TLS_CACERT: '/ca.pem',
      OBJCACHE_TLS_SKIP_HOSTNAME_VERIFICATION: 'true',
    });
    assert.equal(settings.srv, '_memcache._tcp.example.test');
    assert.equal(settings.srvRefreshMs, 60_000);
    assert.equal(settings.maxIdleConns, 5);
    assert.deepEqual(settings.tls, { enabled: true, caCertFile: '/ca.pem', skipHostnameVerification: true });
  });

  test('clear errors: both HOST_PORT and SRV, a bad address, a bad duration, a bad count', () => {
    const check = (env: NodeJS.ProcessEnv, setting: string, message: RegExp) =>
      assert.throws(
        () => readMemcacheSettings(env),
        (error: unknown) =>
          error instanceof SettingsError && error.setting === setting && message.test(error.message),
      );
    check(
      { MEMCACHE_HOST_PORT: '127.0.0.1:11211', MEMCACHE_SRV: '_mc._tcp.example.test' },
      'MEMCACHE_SRV',
      /Both MEMCACHE_HOST_PORT and MEMCACHE_SRV are set/,
    );
    check({ MEMCACHE_HOST_PORT: 'cache-1' }, 'MEMCACHE_HOST_PORT', /'cache-1' is not a host:port address/);
    check(
      { MEMCACHE_SRV: '_mc._tcp.x', MEMCACHE_SRV_REFRESH: 'soon' },
      'MEMCACHE_SRV_REFRESH',
      /not a duration/,
    );
    check(
      { MEMCACHE_HOST_PORT: '127.0.0.1:1', MEMCACHE_MAX_IDLE_CONNS: '-1' },
      'MEMCACHE_MAX_IDLE_CONNS',
      /is not an integer between 0 and 1000000/,
    );
  });
});

describe('isLegalKey (gomemcache legalKey)', () => {
  test('at most 250 bytes, no space, no control character, no DEL', () => {
    assert.equal(isLegalKey('domain_key_value_1700000000'), true);
    assert.equal(isLegalKey('k'.repeat(250)), true);
    assert.equal(isLegalKey('k'.repeat(251)), false);
    assert.equal(isLegalKey(`${'é'.repeat(125)}x`), false, '251 bytes in UTF-8');
    assert.equal(isLegalKey('has space'), false);
    assert.equal(isLegalKey('tab\there'), false);
    assert.equal(isLegalKey('new\nline'), false);
    assert.equal(isLegalKey('del\u007f'), false);
  });
});
