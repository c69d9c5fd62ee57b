import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { waitForPort } from '@platform/testkit';
import { RateLimitClient } from '../src/client/client.js';
import { HealthModel } from '../src/server/health.js';
import { freePorts, loopbackEnv } from './helpers/child-server.js';
import { eventually, request, startTestServer } from './helpers/server.js';

test('health model: any failed component fails the whole; all must be OK again', () => {
  const health = new HealthModel('redis', true);
  assert.equal(health.isHealthy(), false, 'the config component starts unhealthy');
  const changes: boolean[] = [];
  health.onChange((healthy) => changes.push(healthy));
  health.ok('config');
  health.fail('redis');
  health.fail('sigterm');
  health.ok('redis');
  assert.equal(health.isHealthy(), false);
  assert.deepEqual(changes, [true, false]);
  assert.equal(new HealthModel('redis', false).isHealthy(), true);
  // The store reports under its own name: a memcache server has no `redis` component.
  const memcache = new HealthModel('memcache', false);
  memcache.fail('redis');
  assert.equal(memcache.isHealthy(), true);
  memcache.fail('memcache');
  assert.equal(memcache.isHealthy(), false);
});

test('HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED: unhealthy until a domain is loaded', async () => {
  const empty = await startTestServer({}, { HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED: 'true' });
  const loaded = await startTestServer(
    { 'a.yaml': 'domain: a\n' },
    { HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED: 'true' },
  );
  try {
    assert.deepEqual(await empty.get('http', '/healthcheck'), { status: 500, body: '' });
    assert.equal((await empty.client.check('ratelimit')).status, 'NOT_SERVING');
    assert.equal((await empty.client.check('')).status, 'SERVING');
    assert.deepEqual(await loaded.get('http', '/healthcheck'), { status: 200, body: 'OK' });
    assert.equal((await loaded.client.check('ratelimit')).status, 'SERVING');
  } finally {
    await empty.stop();
    await loaded.stop();
  }
});

test('a store that reports itself down fails health, and recovers with it', async () => {
  let listener: (healthy: boolean) => void = () => {};
  let healthy = true;
  const store = {
    kind: 'redis' as const,
    hit: () => Promise.resolve([]),
    isHealthy: () => healthy,
    onHealthChange: (fn: (healthy: boolean) => void) => {
      listener = fn;
    },
    close: () => Promise.resolve(),
  };
  const t = await startTestServer({}, {}, { overrides: { store } });
  try {
    healthy = false;
    listener(false);
    assert.equal((await t.get('http', '/healthcheck')).status, 500);
    healthy = true;
    listener(true);
    assert.equal((await t.get('http', '/healthcheck')).status, 200);
  } finally {
    await t.stop();
  }
});

test('shutdown(): health fails at once, in-flight calls finish, then the ports close', async () => {
  // A store that holds the call until the test releases it, so the call is surely in flight.
  let release: () => void = () => {};
  let reached: () => void = () => {};
  const storeReached = new Promise<void>((resolve) => {
    reached = resolve;
  });
  const store = {
    kind: 'memory' as const,
    hit: () => {
      reached();
      return new Promise<number[]>((resolve) => {
        release = () => resolve([1]);
      });
    },
    isHealthy: () => true,
    onHealthChange: () => {},
    close: () => Promise.resolve(),
  };
  const t = await startTestServer(
    { 'a.yaml': 'domain: a\ndescriptors:\n  - {key: k, rate_limit: {unit: second, requests_per_unit: 5}}\n' },
    {},
    { overrides: { store } },
  );
  const inFlight = t.client.shouldRateLimit(request('a', ['k=v']));
  await storeReached;
  const done = t.server.shutdown();
  release();
  assert.equal(t.server.health.isHealthy(), false);
  assert.equal((await inFlight).overallCode, 'OK');
  await done;
  await assert.rejects(fetch(`http://127.0.0.1:${t.server.ports.http}/healthcheck`));
  await t.stop();
});

test('the ratelimit command exits 0 after SIGTERM, and fails fast on a bad setting', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'ratelimit-bin-'));
  await mkdir(join(root, 'config'), { recursive: true });
  await writeFile(join(root, 'config', 'a.yaml'), 'domain: a\n');
  const ports = await freePorts();
  const { grpc, debug } = ports;
  const env = { ...process.env, BACKEND_TYPE: 'memory', ...loopbackEnv(root, ports) };
  try {
    const bin = fileURLToPath(new URL('../bin/ratelimit.ts', import.meta.url));
    const command = [process.execPath, ['--import', 'tsx', bin]] as const;
    const child = spawn(...command, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // A failed wait must not leave the server running (the test process would never end); the
    // start itself takes well over 10 s on a loaded machine.
    t.after(() => child.kill('SIGKILL'));
    await waitForPort(debug, '127.0.0.1', 30_000);
    const client = new RateLimitClient(`127.0.0.1:${grpc}`);
    await eventually(
      async () => (await client.check('ratelimit').catch(() => ({ status: '' }))).status === 'SERVING',
      10_000,
    );
    client.close();
    child.kill('SIGTERM');
    assert.equal(await exited, 0);
    assert.match(stderr, /received SIGTERM, shutting down gracefully/);

    const bad = spawn(...command, { env: { ...env, PORT: 'eighty' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let badStderr = '';
    bad.stderr.on('data', (chunk) => {
      badStderr += chunk;
    });
    const badExit = await new Promise<number | null>((resolve) => bad.on('exit', (code) => resolve(code)));
    assert.equal(badExit, 1);
    assert.match(
      badStderr,
      /ratelimit: invalid setting PORT: 'eighty' is not an integer between 0 and 65535/,
    );
  } finally {
    await rm(root, { recursive: true, force: true });
  }
});
