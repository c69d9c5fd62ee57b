import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { loadConfig } from '../src/config/loader.js';
import { ConfigError } from '../src/errors.js';

function load(files: Record<string, string>, merge = false) {
  return loadConfig(
    Object.entries(files).map(([name, text]) => ({ kind: 'yaml' as const, name, text })),
    merge,
  );
}

function rejects(files: Record<string, string>, message: string, merge = false) {
  assert.throws(
    () => load(files, merge),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError);
      assert.equal(error.message, message);
      return true;
    },
  );
}

const NAME = 'config.basic.yaml';

test('YAML syntax errors; a repeated mapping key keeps its last value, as in yaml.v2', () => {
  assert.throws(
    () => load({ [NAME]: 'domain: [\n' }),
    /config\.basic\.yaml: error loading config file: yaml: line 2: /,
  );
  // yaml.v2's Unmarshal (not UnmarshalStrict, which the reference does not use) takes the last value.
  assert.deepEqual([...load({ [NAME]: 'domain: a\ndomain: b\n' }).domains.keys()], ['b']);
});

test('wrong scalar types are unmarshal errors', () => {
  rejects(
    {
      [NAME]:
        'domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: second\n      requests_per_unit: "10"\n',
    },
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!str `10` into uint32',
  );
  rejects(
    {
      [NAME]:
        'domain: d\ndescriptors:\n  - key: k\n    rate_limit:\n      unit: second\n      requests_per_unit: -1\n',
    },
    'config.basic.yaml: error loading config file: yaml: unmarshal errors:\n  line 6: cannot unmarshal !!int `-1` into uint32',
  );
});

test('keys outside the allow-list, non-string keys, lists of non-maps, unsupported leaves', () => {
  rejects(
    { [NAME]: 'domain: d\nratelimit: 1\n' },
    "config.basic.yaml: config error, unknown key 'ratelimit'",
  );
  rejects(
    { [NAME]: 'domain: d\ndescriptors:\n  - key: k\n    0.25: x\n' },
    'config.basic.yaml: config error, key is not of type string: 0.25',
  );
  rejects(
    { [NAME]: 'domain: d\ndescriptors:\n  - a\n' },
    'config.basic.yaml: config error, yaml file contains list of type other than map: a',
  );
  rejects(
    {
      [NAME]: 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: {unit: second, requests_per_unit: 1.5}\n',
    },
    'config.basic.yaml: error checking config',
  );
});

test('empty or missing domain, including an empty file', () => {
  rejects({ [NAME]: '' }, 'config.basic.yaml: config file cannot have empty domain');
  rejects({ [NAME]: 'descriptors: []\n' }, 'config.basic.yaml: config file cannot have empty domain');
});

test('a domain in two files is an error unless MERGE_DOMAIN_CONFIG', () => {
  const files = {
    'config.a.yaml':
      'domain: d\ndescriptors:\n  - {key: a, rate_limit: {unit: second, requests_per_unit: 1}}\n',
    'config.b.yaml':
      'domain: d\ndescriptors:\n  - {key: b, rate_limit: {unit: second, requests_per_unit: 1}}\n',
  };
  rejects(files, "config.b.yaml: duplicate domain 'd' in config file");
  const merged = load(files, true);
  assert.deepEqual(
    merged.rules.map((rule) => rule.fullKey),
    ['d.a', 'd.b'],
  );
  rejects(
    {
      ...files,
      'config.c.yaml':
        'domain: d\ndescriptors:\n  - {key: a, rate_limit: {unit: second, requests_per_unit: 2}}\n',
    },
    "config.c.yaml: duplicate descriptor composite key 'd.a'",
    true,
  );
});

test('descriptor errors: empty key, duplicate composite key', () => {
  rejects(
    { [NAME]: 'domain: d\ndescriptors:\n  - {value: v}\n' },
    'config.basic.yaml: descriptor has empty key',
  );
  rejects(
    {
      [NAME]:
        'domain: test-domain\ndescriptors:\n  - {key: key1, value: value1}\n  - {key: key1, value: value1, rate_limit: {unit: day, requests_per_unit: 1}}\n',
    },
    "config.basic.yaml: duplicate descriptor composite key 'test-domain.key1_value1'",
  );
  rejects(
    {
      [NAME]: 'domain: d\ndescriptors:\n  - key: p\n    descriptors:\n      - {key: c}\n      - {key: c}\n',
    },
    "config.basic.yaml: duplicate descriptor composite key 'd.p.c'",
  );
});

test('rate limit errors: units, unlimited with a unit, replaces', () => {
  const rule = (block: string) => ({
    [NAME]: `domain: d\ndescriptors:\n  - key: k\n    rate_limit: ${block}\n`,
  });
  rejects(
    rule('{unit: fortnight, requests_per_unit: 1}'),
    "config.basic.yaml: invalid rate limit unit 'fortnight'",
  );
  rejects(rule('{requests_per_unit: 1}'), "config.basic.yaml: invalid rate limit unit ''");
  rejects(
    rule('{unit: unknown, requests_per_unit: 1}'),
    "config.basic.yaml: invalid rate limit unit 'unknown'",
  );
  rejects(
    rule('{unit: second, unlimited: true}'),
    'config.basic.yaml: should not specify rate limit unit when unlimited',
  );
  rejects(
    rule('{unit: second, requests_per_unit: 1, replaces: [{name: ""}]}'),
    'config.basic.yaml: should not have an empty replaces entry',
  );
  rejects(
    rule('{unit: second, requests_per_unit: 1, name: n, replaces: [{name: n}]}'),
    'config.basic.yaml: replaces should not contain name of same descriptor',
  );
  for (const unit of ['SECOND', 'Minute', 'hour', 'day', 'week', 'month', 'year']) {
    assert.equal(load(rule(`{unit: ${unit}, requests_per_unit: 1}`)).rules[0]?.unit, unit.toUpperCase());
  }
  assert.equal(load(rule('{unlimited: true}')).rules[0]?.unlimited, true);
});

test('share_threshold needs a trailing wildcard', () => {
  rejects(
    { [NAME]: 'domain: d\ndescriptors:\n  - {key: files, value: a.pdf, share_threshold: true}\n' },
    "config.basic.yaml: share_threshold can only be used with wildcard values (ending with '*'), but found key 'files_a.pdf'",
  );
  rejects(
    { [NAME]: 'domain: d\ndescriptors:\n  - {key: files, share_threshold: true}\n' },
    "config.basic.yaml: share_threshold can only be used with wildcard values (ending with '*'), but found key 'files'",
  );
});

test('yaml.v2 leniencies: non-string scalars in string fields, only the first document', () => {
  const config = load({
    [NAME]:
      'domain: d\ndescriptors:\n  - {key: k, value: 123, rate_limit: {unit: second, requests_per_unit: 1}}\n---\nbogus: 1\n',
  });
  assert.equal(config.rules[0]?.fullKey, 'd.k_123');
});

test('object sources (xDS) get the same validation, named by the resource', () => {
  assert.throws(
    () =>
      loadConfig(
        [{ kind: 'object', name: 'xds-resource', value: { domain: 'd', descriptors: [{ key: '' }] } }],
        false,
      ),
    /xds-resource: descriptor has empty key/,
  );
  const config = loadConfig(
    [
      {
        kind: 'object',
        name: 'r',
        value: {
          domain: 'd',
          descriptors: [{ key: 'k', rate_limit: { unit: 'MINUTE', requests_per_unit: 3 } }],
        },
      },
    ],
    false,
  );
  assert.equal(config.rules[0]?.requestsPerUnit, 3);
});

test('ratelimit-config-check reports the first error and exits 1, or says all ok', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'config-check-'));
  const run = promisify(execFile);
  const bin = fileURLToPath(new URL('../bin/ratelimit-config-check.ts', import.meta.url));
  const command = ['--import', 'tsx', bin, '-config_dir', dir];
  try {
    await writeFile(
      join(dir, 'a.yaml'),
      'domain: a\ndescriptors:\n  - {key: k, rate_limit: {unit: second, requests_per_unit: 1}}\n',
    );
    const ok = await run(process.execPath, command);
    assert.match(
      ok.stdout,
      /^checking rate limit configs\.\.\.\nloading config directory: .*\nopening config file: .*a\.yaml\nall rate limit configs ok\n$/,
    );
    await writeFile(join(dir, 'b.yaml'), 'domain: a\n');
    const failed = await run(process.execPath, command).then(
      () => assert.fail('expected exit 1'),
      (error: { code: number; stdout: string }) => error,
    );
    assert.equal(failed.code, 1);
    assert.match(
      failed.stdout,
      /error loading rate limit configs: \/.*\/b\.yaml: duplicate domain 'a' in config file\n$/,
    );
    const merged = await run(process.execPath, [...command, '-merge_domain_configs']);
    assert.match(merged.stdout, /all rate limit configs ok/);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('ratelimit-config-check refuses what the server refuses for its BACKEND_TYPE: Memcached counts fixed windows only', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'config-check-'));
  const run = (env: NodeJS.ProcessEnv) =>
    promisify(execFile)(
      process.execPath,
      [
        '--import',
        'tsx',
        fileURLToPath(new URL('../bin/ratelimit-config-check.ts', import.meta.url)),
        '-config_dir',
        dir,
      ],
      { env: { ...process.env, ...env } },
    ).then(
      (result) => ({ code: 0, ...result }),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
  try {
    await writeFile(
      join(dir, 'api.yaml'),
      'domain: api\ndescriptors:\n  - {key: user, rate_limit: {unit: minute, requests_per_unit: 5, algorithm: sliding_window}}\n',
    );
    for (const backend of ['redis', 'memory']) {
      const ok = await run({ BACKEND_TYPE: backend });
      assert.equal(ok.code, 0, ok.stdout);
      assert.match(ok.stdout, /all rate limit configs ok\n$/);
    }
    for (const backend of ['memcache', 'OBJCACHE']) {
      const refused = await run({ BACKEND_TYPE: backend });
      assert.equal(refused.code, 1);
      assert.match(
        refused.stdout,
        /error loading rate limit configs: .*api\.yaml: descriptor 'api\.user': algorithm sliding_window is not available with the memcache backend, which counts fixed_window only: use BACKEND_TYPE=redis or memory, or drop the algorithm\n$/,
      );
    }
    const bad = await run({ BACKEND_TYPE: 'cassandra' });
    assert.equal(bad.code, 1);
    assert.equal(
      bad.stderr,
      "ratelimit-config-check: invalid setting BACKEND_TYPE: 'cassandra' is not one of redis, memcache (alias objcache), memory\n",
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('ratelimit-config-check names the file as the config dir joined with its name, as given', async () => {
  const root = await mkdtemp(join(tmpdir(), 'config-check-'));
  const bin = fileURLToPath(new URL('../bin/ratelimit-config-check.ts', import.meta.url));
  try {
    await mkdir(join(root, 'sub', 'dir'), { recursive: true });
    await writeFile(
      join(root, 'sub', 'dir', 'bad_limit_unit.yaml'),
      'domain: a\ndescriptors:\n  - {key: k, rate_limit: {unit: foo, requests_per_unit: 1}}\n',
    );
    // A relative directory, as a user types it: the messages keep it as it was given.
    const given = relative(process.cwd(), join(root, 'sub', 'dir'));
    const failed = await promisify(execFile)(process.execPath, [
      '--import',
      'tsx',
      bin,
      '-config_dir',
      given,
    ]).then(
      () => assert.fail('expected exit 1'),
      (error: { code: number; stdout: string }) => error,
    );
    assert.equal(failed.code, 1);
    const file = `${given}/bad_limit_unit.yaml`;
    assert.ok(failed.stdout.includes(`opening config file: ${file}\n`), failed.stdout);
    assert.ok(
      failed.stdout.endsWith(`error loading rate limit configs: ${file}: invalid rate limit unit 'foo'\n`),
      failed.stdout,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
