import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseGoBool, parseGoDuration } from '../src/env-reader.js';
import { SettingsError } from '../src/errors.js';
import { readSettings } from '../src/settings.js';

test('defaults follow the reference, with the project decisions', () => {
  const settings = readSettings({});
  assert.deepEqual(settings.http, { host: '0.0.0.0', port: 8080 });
  assert.equal(settings.grpc.port, 8081);
  assert.equal(settings.grpc.maxConnectionAgeMs, 24 * 3_600_000);
  assert.equal(settings.grpc.maxDescriptors, 1000);
  assert.equal(settings.grpc.tls, undefined);
  assert.equal(settings.grpc.maxConnectionAgeGraceMs, 3_600_000);
  assert.deepEqual(settings.debug, { host: '0.0.0.0', port: 6070 });
  assert.equal(settings.config.type, 'FILE');
  assert.deepEqual(settings.config.file, {
    runtimeRoot: '/srv/runtime_data/current',
    runtimeSubdirectory: '',
    runtimeAppDirectory: 'config',
    ignoreDotFiles: false,
    watchRoot: true,
  });
  assert.deepEqual(settings.limiter, {
    cacheKeyPrefix: '',
    nearLimitRatio: 0.8,
    stopIncrementWhenOverLimit: false,
  });
  assert.deepEqual(settings.service, {
    globalShadowMode: false,
    responseHeaders: undefined,
    responseDynamicMetadata: false,
    maxDescriptors: 1000,
  });
  assert.deepEqual(readSettings({ LIMIT_RESPONSE_HEADERS_ENABLED: 'true' }).service.responseHeaders, {
    limit: 'RateLimit-Limit',
    remaining: 'RateLimit-Remaining',
    reset: 'RateLimit-Reset',
  });
  assert.equal(settings.backend.type, 'redis');
  assert.equal(settings.backend.type === 'redis' && settings.backend.expirationJitterMaxSeconds, 300);
  // Each backend's settings are read (and checked) only when BACKEND_TYPE selects it.
  assert.deepEqual(readSettings({ BACKEND_TYPE: 'memory' }).backend, {
    type: 'memory',
    memory: { maxCounters: 2_000_000, maxBytes: 256 * 1024 * 1024 },
  });
  assert.throws(
    () => readSettings({ BACKEND_TYPE: 'memory', MEMORY_MAX_BYTES: '1048576' }),
    /MEMORY_MAX_BYTES/,
  );
  assert.equal(readSettings({ MEMORY_MAX_BYTES: '1048576' }).backend.type, 'redis');
  // The key arena is one buffer of MEMORY_MAX_BYTES: at most 2 GiB.
  assert.throws(
    () => readSettings({ BACKEND_TYPE: 'memory', MEMORY_MAX_BYTES: String(2 ** 31 + 1) }),
    /^SettingsError: MEMORY_MAX_BYTES: '2147483649' is not an integer between 16777216 and 2147483648$/,
  );
  assert.deepEqual(settings.httpClientLimits, {
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    lingering: { timeMs: 30_000, maxBytes: 16 * 1024 * 1024 },
  });
  assert.equal(settings.grpc.handshakeTimeoutMs, 120_000);
  assert.equal(settings.grpc.transport, 'grpc-js');
  assert.equal(readSettings({ GRPC_TRANSPORT: 'h2' }).grpc.transport, 'h2');
  assert.throws(
    () => readSettings({ GRPC_TRANSPORT: 'quic' }),
    /GRPC_TRANSPORT: 'quic' is not one of grpc-js, h2/,
  );
  assert.equal(settings.shutdownDrainMs, 0);
  assert.throws(
    () => readSettings({ HTTP_HEADERS_TIMEOUT: '1m', HTTP_REQUEST_TIMEOUT: '30s' }),
    /HTTP_HEADERS_TIMEOUT: must not be longer than HTTP_REQUEST_TIMEOUT/,
  );
  assert.throws(
    () => readSettings({ GRPC_HANDSHAKE_TIMEOUT: '0s' }),
    /GRPC_HANDSHAKE_TIMEOUT: must be at least 1ms/,
  );
  // No LOG_FORMAT: the logger picks text on a terminal, JSON otherwise (resolveLogFormat).
  assert.deepEqual(settings.log, { level: 'warn', format: undefined });
  assert.equal(settings.stats.sink.useStatsd, true);
  assert.equal(settings.stats.sink.statsdHost, 'localhost');
  assert.equal(settings.stats.flushIntervalMs, 10_000);
  assert.equal(settings.stats.sink.prometheusAddr, ':9090');
  assert.equal(settings.stats.sink.debugLog, false);
  assert.equal(readSettings({ LOG_LEVEL: 'trace' }).stats.sink.debugLog, true);
  assert.equal(settings.tracing.serviceName, 'RateLimit');
  assert.match(settings.tracing.serviceInstanceId, /^[0-9a-f-]{36}$/);
  assert.equal(settings.config.xds.serverUrl, 'localhost:18000');
  assert.equal(settings.config.xds.backoff.jitter, true);
  assert.equal(settings.config.xds.backoff.initialIntervalMs, 10_000);
  assert.ok(Object.isFrozen(settings) && Object.isFrozen(settings.limiter));
});

test('the spec document spellings are aliases of the real names', () => {
  const settings = readSettings({
    BACKEND_TYPE: 'objcache',
    USE_PUSHSTATS: 'false',
    USE_PULLSTATS: 'true',
    PULLSTATS_ADDR: ':9191',
    PULLSTATS_PATH: '/m',
  });
  assert.equal(settings.backend.type, 'memcache');
  assert.equal(settings.stats.sink.useStatsd, false);
  assert.equal(settings.stats.sink.usePrometheus, true);
  assert.equal(settings.stats.sink.prometheusAddr, ':9191');
  assert.equal(settings.stats.sink.prometheusPath, '/m');
  const tagged = readSettings({
    USE_STATSD: 'false',
    USE_TAGSTATS: 'true',
    TAGSTATS_MOGRIFIERS: 'A',
    TAGSTATS_MOGRIFIER_A_PATTERN: '^ratelimit\\.(\\w+)$',
    TAGSTATS_MOGRIFIER_A_NAME: 'rl',
    TAGSTATS_MOGRIFIER_A_TAGS: 'what:$1',
  });
  assert.equal(tagged.stats.sink.useDogStatsd, true);
  assert.deepEqual(tagged.stats.sink.dogStatsdMogrifiers, [
    { id: 'A', pattern: '^ratelimit\\.(\\w+)$', name: 'rl', tags: { what: '$1' } },
  ]);
  assert.equal(readSettings({ BACKEND_TYPE: 'memory' }).backend.type, 'memory');
});

test('parsing: Go booleans and durations, pairs, log levels', () => {
  assert.equal(parseGoBool('T'), true);
  assert.equal(parseGoBool('False'), false);
  assert.equal(parseGoBool('yes'), undefined);
  assert.equal(parseGoDuration('1s'), 1000);
  assert.equal(parseGoDuration('500ms'), 500);
  assert.equal(parseGoDuration('1h30m'), 5_400_000);
  assert.equal(parseGoDuration('1.5h'), 5_400_000);
  assert.equal(parseGoDuration('0'), 0);
  assert.equal(parseGoDuration('10'), undefined);
  const settings = readSettings({
    EXTRA_TAGS: 'a:b,c:d',
    CONFIG_GRPC_XDS_NODE_METADATA: 'k=v',
    LOG_LEVEL: 'debug',
    LOG_FORMAT: 'json',
    STATS_FLUSH_INTERVAL: '250ms',
  });
  assert.deepEqual(settings.stats.sink.extraTags, { a: 'b', c: 'd' });
  assert.deepEqual(settings.config.xds.nodeMetadata, { k: 'v' });
  assert.deepEqual(settings.log, { level: 'debug', format: 'json' });
  assert.equal(settings.stats.flushIntervalMs, 250);
});

test('invalid values fail fast with a message naming the setting', () => {
  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ PORT: 'eighty' }, /^PORT: 'eighty' is not an integer between 0 and 65535$/],
    [{ GRPC_PORT: '70000' }, /^GRPC_PORT: /],
    [{ SHADOW_MODE: 'yes' }, /^SHADOW_MODE: 'yes' is not a boolean/],
    [{ NEAR_LIMIT_RATIO: '1.5' }, /^NEAR_LIMIT_RATIO: /],
    [
      { BACKEND_TYPE: 'mongo' },
      /^BACKEND_TYPE: 'mongo' is not one of redis, memcache \(alias objcache\), memory$/,
    ],
    [{ CONFIG_TYPE: 'ETCD' }, /^CONFIG_TYPE: 'ETCD' is not one of FILE, GRPC_XDS_SOTW$/],
    [{ GRPC_MAX_CONNECTION_AGE: 'forever' }, /^GRPC_MAX_CONNECTION_AGE: 'forever' is not a duration/],
    [{ STATS_FLUSH_INTERVAL: '10' }, /^STATS_FLUSH_INTERVAL: /],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL: /],
    [{ LOCAL_CACHE_SIZE_IN_BYTES: '-1' }, /^LOCAL_CACHE_SIZE_IN_BYTES: /],
    [{ EXTRA_TAGS: 'novalue' }, /^EXTRA_TAGS: 'novalue' is not of the form key:value$/],
    [{ USE_PROMETHEUS: 'true' }, /^USE_STATSD: unable to use more than one stats sink at the same time/],
    [{ USE_TAGSTATS: 'true', USE_PUSHSTATS: 'true' }, /^USE_STATSD: unable to use more than one stats sink/],
    [{ USE_STATSD: 'false', USE_DOG_STATSD_MOGRIFIERS: 'X' }, /^DOG_STATSD_MOGRIFIER_X_PATTERN: is required/],
    [
      { USE_DOG_STATSD_MOGRIFIERS: 'X', DOG_STATSD_MOGRIFIER_X_PATTERN: '(' },
      /^DOG_STATSD_MOGRIFIER_X_PATTERN: is not a valid regular expression/,
    ],
    [
      { GRPC_SERVER_USE_TLS: 'true' },
      /^GRPC_SERVER_USE_TLS: needs GRPC_SERVER_TLS_CERT and GRPC_SERVER_TLS_KEY$/,
    ],
    [{ TRACING_SAMPLING_RATE: '2' }, /^TRACING_SAMPLING_RATE: /],
    [{ TRACING_EXPORTER_PROTOCOL: 'udp' }, /^TRACING_EXPORTER_PROTOCOL: /],
  ];
  for (const [env, message] of cases) {
    assert.throws(
      () => readSettings(env),
      (error: unknown) => error instanceof SettingsError && message.test(error.message),
      JSON.stringify(env),
    );
  }
});
