import assert from 'node:assert/strict';
import { mkdir, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { counter, eventually, request, startTestServer } from './helpers/server.js';

const RELOAD = `domain: reload
descriptors:
  - {key: key1, rate_limit: {unit: second, requests_per_unit: 50}}
  - {key: block, rate_limit: {unit: second, requests_per_unit: 0}}
`;
const BASIC =
  'domain: basic\ndescriptors:\n  - {key: key1, rate_limit: {unit: second, requests_per_unit: 50}}\n';

test('RUNTIME_WATCH_ROOT=false: a new file, a bad file and a removed file each reload', async () => {
  const t = await startTestServer({ 'basic.yaml': BASIC }, { RUNTIME_WATCH_ROOT: 'false' });
  const loads = () => counter(t.server, 'ratelimit.service.config_load_success');
  const errors = () => counter(t.server, 'ratelimit.service.config_load_error');
  try {
    assert.equal(loads(), 1);
    const unknown = await t.client.shouldRateLimit(request('reload', ['block=foo']));
    assert.deepEqual((unknown.statuses as Array<Record<string, unknown>>)[0]?.currentLimit, null);

    await writeFile(join(t.configDir, 'reload.yaml'), RELOAD);
    await eventually(() => loads() >= 2);
    const loaded = await t.client.shouldRateLimit(request('reload', ['key1=foo']));
    const status = (loaded.statuses as Array<Record<string, unknown>>)[0];
    assert.deepEqual(status?.currentLimit, { name: '', requestsPerUnit: 50, unit: 'SECOND' });
    assert.equal(status?.limitRemaining, 49);

    // A bad reload keeps the previous config and counts config_load_error.
    await writeFile(join(t.configDir, 'bad.yaml'), 'domain: bad\nratelimit: 1\n');
    await eventually(() => errors() >= 1);
    const stillLoaded = await t.client.shouldRateLimit(request('reload', ['block=x']));
    assert.equal(stillLoaded.overallCode, 'OVER_LIMIT');
    const rlconfig = await t.get('debug', '/rlconfig');
    assert.match(rlconfig.body, /reload\.block: unit=SECOND requests_per_unit=0, shadow_mode: false/);

    await rm(join(t.configDir, 'bad.yaml'));
    await eventually(() => loads() >= 3);
    const before = loads();
    await rm(join(t.configDir, 'reload.yaml'));
    await eventually(() => loads() > before);
    const gone = await t.client.shouldRateLimit(request('reload', ['block=x']));
    assert.equal(gone.overallCode, 'OK');
  } finally {
    await t.stop();
  }
});

test('RUNTIME_WATCH_ROOT=true: swapping the root symlink reloads; names keep the app directory', async () => {
  const t = await startTestServer({}, {}, {});
  await t.stop();
  const base = t.runtimeRoot;
  await mkdir(join(base, 'v1', 'ratelimit', 'config'), { recursive: true });
  await mkdir(join(base, 'v2', 'ratelimit', 'config'), { recursive: true });
  await writeFile(join(base, 'v1', 'ratelimit', 'config', 'basic.yaml'), BASIC);
  await writeFile(join(base, 'v2', 'ratelimit', 'config', 'reload.yaml'), RELOAD);
  await writeFile(join(base, 'v2', 'ratelimit', 'config', 'broken.yaml'), 'domain: x\nunknown_key: 1\n');
  await symlink(join(base, 'v1'), join(base, 'current'));
  const root = join(base, 'current');
  const watched = await startTestServer({}, { RUNTIME_ROOT: root, RUNTIME_WATCH_ROOT: 'true' });
  try {
    const basic = await watched.client.shouldRateLimit(request('basic', ['key1=a']));
    assert.equal((basic.statuses as Array<Record<string, unknown>>)[0]?.limitRemaining, 49);
    // Swap the symlink atomically, as deployment tools do.
    await symlink(join(base, 'v2'), join(base, 'next'));
    await rename(join(base, 'next'), root);
    await eventually(() => counter(watched.server, 'ratelimit.service.config_load_error') >= 1);
    await rm(join(base, 'v2', 'ratelimit', 'config', 'broken.yaml'));
    await symlink(join(base, 'v1'), join(base, 'next'));
    await rename(join(base, 'next'), root);
    await symlink(join(base, 'v2'), join(base, 'next'));
    await rename(join(base, 'next'), root);
    await eventually(async () => {
      const response = await watched.client.shouldRateLimit(request('reload', ['block=x']));
      return response.overallCode === 'OVER_LIMIT';
    });
  } finally {
    await watched.stop();
    await rm(base, { recursive: true, force: true });
  }
});

test('the goruntime file names appear in errors: config.<file> with watch root, <file> without', async () => {
  const bad = {
    'bad.yaml':
      'domain: d\ndescriptors:\n  - {key: k, rate_limit: {unit: fortnight, requests_per_unit: 1}}\n',
  };
  const messages: string[] = [];
  const log = { debug() {}, info() {}, warn() {}, error: (message: string) => messages.push(message) };
  const withRoot = await startTestServer(bad, {}, { overrides: { log } });
  await withRoot.stop();
  const withoutRoot = await startTestServer(bad, { RUNTIME_WATCH_ROOT: 'false' }, { overrides: { log } });
  await withoutRoot.stop();
  assert.deepEqual(messages, [
    "Error loading new configuration: config.bad.yaml: invalid rate limit unit 'fortnight'",
    "Error loading new configuration: bad.yaml: invalid rate limit unit 'fortnight'",
  ]);
});

test('a failed initial load: every call fails with "no rate limit configuration loaded"', async () => {
  const t = await startTestServer({ 'bad.yaml': 'domain: ""\n' });
  try {
    await assert.rejects(
      t.client.shouldRateLimit(request('basic', ['key1=a'])),
      (error: { code: number; details: string }) => {
        assert.equal(error.code, 2);
        assert.equal(error.details, 'no rate limit configuration loaded');
        return true;
      },
    );
    assert.equal((await t.json('{"domain":"basic","descriptors":[{"entries":[{"key":"a"}]}]}')).status, 400);
    assert.equal((await t.get('debug', '/rlconfig')).body, '');
  } finally {
    await t.stop();
  }
});

test('no files at all is an empty config and still a load success', async () => {
  const t = await startTestServer({});
  try {
    assert.equal(counter(t.server, 'ratelimit.service.config_load_success'), 1);
    const response = await t.client.shouldRateLimit(request('any', ['a=b']));
    assert.equal(response.overallCode, 'OK');
  } finally {
    await t.stop();
  }
});

test('RUNTIME_IGNOREDOTFILES skips dot files; without it they load', async () => {
  const files = { '.hidden.yaml': BASIC };
  const ignoring = await startTestServer(files, { RUNTIME_IGNOREDOTFILES: 'true' });
  const loading = await startTestServer(files);
  try {
    assert.equal((await ignoring.get('debug', '/rlconfig')).body, '');
    assert.match((await loading.get('debug', '/rlconfig')).body, /basic\.key1/);
  } finally {
    await ignoring.stop();
    await loading.stop();
  }
});
