import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storeCapabilities } from '../src/backends/index.js';
import { loadConfig } from '../src/config/loader.js';
import { ConfigError } from '../src/errors.js';

const NAME = 'algorithms.yaml';

function load(descriptors: string, backend: 'memory' | 'redis' | 'memcache' = 'memory') {
  const text = `domain: api\ndescriptors:\n${descriptors}`;
  return loadConfig([{ kind: 'yaml', name: NAME, text }], false, storeCapabilities(backend));
}

function rejects(descriptors: string, message: string, backend?: 'memory' | 'redis' | 'memcache') {
  assert.throws(
    () => load(descriptors, backend),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, message);
      return true;
    },
  );
}

test('every old document means what it meant: one fixed window of one unit', () => {
  const config = load('  - {key: k, rate_limit: {unit: minute, requests_per_unit: 5}}\n');
  const rule = config.rules[0];
  assert.equal(rule?.limits.length, 1);
  assert.deepEqual(rule?.limits[0], {
    algorithm: 'fixed_window',
    unit: 'MINUTE',
    unitMultiplier: 1,
    requestsPerUnit: 5,
    windowSeconds: 60,
    threshold: 5,
    params: undefined,
    keyTag: '',
    name: '',
    replaces: [],
  });
});

test('the new fields are read: algorithm, burst, unit_multiplier and rate_limits', () => {
  const config = load(`  - key: b
    rate_limit: {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 5, unit_multiplier: 3}
  - key: l
    rate_limits:
      - {unit: minute, requests_per_unit: 4, algorithm: sliding_window}
      - {unit: second, requests_per_unit: 3}
      - {unit: hour, requests_per_unit: 9}
`);
  const [bucket, list] = config.rules;
  assert.deepEqual(bucket?.limits[0]?.params, { kind: 'token_bucket', windowMs: 3000, rate: 2 });
  assert.equal(bucket?.limits[0]?.threshold, 5);
  assert.equal(bucket?.limits[0]?.windowSeconds, 3);
  // The first fixed window keeps the reference's key; the others are tagged with their index.
  assert.deepEqual(
    list?.limits.map((limit) => [limit.algorithm, limit.keyTag]),
    [
      ['sliding_window', '#0'],
      ['fixed_window', ''],
      ['fixed_window', '#2'],
    ],
  );
  assert.equal(
    load('  - {key: d, rate_limit: {unit: day, requests_per_unit: 7, algorithm: token_bucket}}\n').rules[0]
      ?.limits[0]?.threshold,
    7,
    'burst defaults to requests_per_unit',
  );
});

test('each validation error names the file and the descriptor', () => {
  rejects(
    '  - {key: k, rate_limit: {unit: second, requests_per_unit: 1, algorithm: leaky_bucket}}\n',
    "algorithms.yaml: descriptor 'api.k': unknown algorithm 'leaky_bucket': use fixed_window, sliding_window or token_bucket",
  );
  rejects(
    '  - {key: k, value: v, rate_limit: {unit: second, requests_per_unit: 1, burst: 3}}\n',
    "algorithms.yaml: descriptor 'api.k_v': burst applies to algorithm token_bucket only, not fixed_window",
  );
  for (const bad of ['0', '1.5', '-2', 'ten']) {
    rejects(
      `  - {key: k, rate_limit: {unit: second, requests_per_unit: 1, unit_multiplier: ${bad}}}\n`,
      `algorithms.yaml: descriptor 'api.k': unit_multiplier must be a whole number of at least 1, got '${bad}'`,
    );
  }
  rejects(
    `  - key: k
    rate_limit: {unit: second, requests_per_unit: 1}
    rate_limits: [{unit: minute, requests_per_unit: 2}]
`,
    "algorithms.yaml: descriptor 'api.k': rate_limit and rate_limits cannot both be set: use one of them",
  );
  rejects(
    '  - {key: k, rate_limits: [{unit: minute, requests_per_unit: 2}, {unlimited: true}]}\n',
    "algorithms.yaml: descriptor 'api.k': unlimited cannot be used inside rate_limits: use rate_limit with unlimited: true",
  );
  rejects(
    '  - {key: k, rate_limits: []}\n',
    "algorithms.yaml: descriptor 'api.k': rate_limits is empty: list at least one limit, or remove it",
  );
  rejects(
    '  - {key: k, descriptors: [{key: c, rate_limit: {unit: second, requests_per_unit: 1, algorithm: token_bucket, burst: 0}}]}\n',
    "algorithms.yaml: descriptor 'api.k.c': burst must be a whole number of at least 1, got '0'",
  );
  rejects(
    '  - {key: k, rate_limit: {unit: second, requests_per_unit: 0, algorithm: token_bucket, burst: 4}}\n',
    "algorithms.yaml: descriptor 'api.k': a token_bucket with requests_per_unit 0 never refills: remove burst (every hit is refused)",
  );
  rejects(
    '  - {key: k, rate_limit: {unit: year, requests_per_unit: 1, unit_multiplier: 40}}\n',
    "algorithms.yaml: descriptor 'api.k': unit × unit_multiplier is 1261440000 seconds, longer than the longest window of 1000000000 seconds",
  );
  rejects(
    '  - {key: k, rate_limit: {unlimited: true, algorithm: sliding_window}}\n',
    "algorithms.yaml: descriptor 'api.k': an unlimited rate_limit takes no algorithm, burst or unit_multiplier",
  );
});

test("a list's entries keep the reference's unit checks and error texts", () => {
  rejects(
    '  - {key: k, rate_limits: [{unit: fortnight, requests_per_unit: 2}]}\n',
    "algorithms.yaml: invalid rate limit unit 'fortnight'",
  );
  rejects(
    '  - {key: k, rate_limits: [{unit: minute, requests_per_unit: 2, oops: 1}]}\n',
    "algorithms.yaml: config error, unknown key 'oops'",
  );
});

test('Memcached refuses every algorithm but the fixed window at load, naming the backend', () => {
  const message =
    "algorithms.yaml: descriptor 'api.k': algorithm sliding_window is not available with the memcache backend, which counts fixed_window only: use BACKEND_TYPE=redis or memory, or drop the algorithm";
  rejects(
    '  - {key: k, rate_limits: [{unit: minute, requests_per_unit: 2}, {unit: hour, requests_per_unit: 9, algorithm: sliding_window}]}\n',
    message,
    'memcache',
  );
  // Fixed windows, unit_multiplier and lists of them are fine.
  load(
    '  - {key: k, rate_limits: [{unit: second, requests_per_unit: 2, unit_multiplier: 5}, {unit: hour, requests_per_unit: 9}]}\n',
    'memcache',
  );
  load('  - {key: k, rate_limit: {unit: second, requests_per_unit: 2, algorithm: token_bucket}}\n', 'redis');
});

test('/rlconfig prints a line per limit, with the new fields when they are not the default', async () => {
  const { dumpConfig } = await import('../src/config/dump.js');
  const config = load(`  - {key: old, rate_limit: {unit: minute, requests_per_unit: 5}}
  - {key: free, rate_limit: {unlimited: true}}
  - key: l
    rate_limits:
      - {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 5}
      - {unit: second, unit_multiplier: 30, requests_per_unit: 3, algorithm: sliding_window}
`);
  assert.equal(
    dumpConfig(config),
    [
      'api.old: unit=MINUTE requests_per_unit=5, shadow_mode: false',
      'api.free: unit=UNKNOWN requests_per_unit=0, shadow_mode: false',
      'api.l: unit=SECOND requests_per_unit=2, shadow_mode: false, algorithm: token_bucket, burst: 5',
      'api.l: unit=SECOND requests_per_unit=3, shadow_mode: false, algorithm: sliding_window, unit_multiplier: 30',
      '',
    ].join('\n'),
  );
});

test('the new fields work through anchors, aliases and merge keys', () => {
  const config = load(`  - key: a
    rate_limit: &base {unit: minute, requests_per_unit: 5, algorithm: sliding_window}
  - key: b
    rate_limits: [*base, {<<: *base, unit: second, algorithm: token_bucket, burst: 9}]
`);
  const list = config.rules[1]?.limits;
  assert.deepEqual(
    list?.map((limit) => [limit.algorithm, limit.unit, limit.threshold]),
    [
      ['sliding_window', 'MINUTE', 5],
      ['token_bucket', 'SECOND', 9],
    ],
  );
});
