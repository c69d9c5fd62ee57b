import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '@platform/testkit';
import { RateLimitClient } from '../src/client/client.js';
import type { ApplyConfig } from '../src/config/source.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import type { ConfigProvider } from '../src/provider/provider.js';
import { readSettings } from '../src/settings.js';
import { counter, eventually, loopbackEnv, request, startTestServer } from './helpers/server.js';

/** A provider the test drives by hand, as the xDS provider drives `apply`. */
class ManualProvider implements ConfigProvider {
  apply: ApplyConfig | undefined;
  start(apply: ApplyConfig): Promise<void> {
    this.apply = apply;
    // Set up, no config yet: what the xDS provider does under FORCE_START_WITHOUT_INITIAL_CONFIG.
    return Promise.resolve();
  }
  stop(): Promise<void> {
    return Promise.resolve();
  }
}

test('FORCE_START_WITHOUT_INITIAL_CONFIG with xDS: the ports open before the management server answers, but xDS TLS files that cannot be read still stop the start', async () => {
  const env = {
    ...loopbackEnv('/nonexistent-ratelimit-root'),
    DISABLE_STATS: 'true',
    CONFIG_TYPE: 'GRPC_XDS_SOTW',
    // Nothing listens there: the management server never answers.
    CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${await freePort()}`,
    FORCE_START_WITHOUT_INITIAL_CONFIG: 'true',
  };
  const server = await startServer(readSettings(env), { log: silentLogger });
  const client = new RateLimitClient(`127.0.0.1:${server.ports.grpc}`);
  try {
    await assert.rejects(client.shouldRateLimit(request('x', ['k=v'])), /no rate limit configuration loaded/);
  } finally {
    client.close();
    await server.close();
  }
  const withTls = {
    ...env,
    CONFIG_GRPC_XDS_SERVER_USE_TLS: 'true',
    CONFIG_GRPC_XDS_SERVER_TLS_CACERT: '/nonexistent/ca.pem',
  };
  await assert.rejects(
    startServer(readSettings(withTls), { log: silentLogger }),
    /^SettingsError: CONFIG_GRPC_XDS_SERVER_TLS_CACERT: cannot read '\/nonexistent\/ca.pem'/,
  );
});

test('a provider with no config yet: every call says so; object sources then load', async () => {
  const provider = new ManualProvider();
  const t = await startTestServer({}, {}, { overrides: { provider } });
  try {
    await assert.rejects(
      t.client.shouldRateLimit(request('x', ['k=v'])),
      /no rate limit configuration loaded/,
    );
    provider.apply?.([
      {
        kind: 'object',
        name: 'xds-x',
        value: {
          domain: 'x',
          descriptors: [{ key: 'k', rate_limit: { unit: 'MINUTE', requests_per_unit: 1 } }],
        },
      },
    ]);
    assert.equal(counter(t.server, 'ratelimit.service.config_load_success'), 1);
    const response = await t.client.shouldRateLimit(request('x', ['k=v']));
    assert.deepEqual((response.statuses as Array<Record<string, unknown>>)[0]?.currentLimit, {
      name: '',
      requestsPerUnit: 1,
      unit: 'MINUTE',
    });
    assert.throws(
      () => provider.apply?.([{ kind: 'object', name: 'xds-bad', value: { domain: '' } }]),
      /xds-bad: config file cannot have empty domain/,
    );
    assert.equal(counter(t.server, 'ratelimit.service.config_load_error'), 1);
  } finally {
    await t.stop();
  }
});

test('MERGE_DOMAIN_CONFIG merges one domain from several files in the running server', async () => {
  const t = await startTestServer(
    {
      'a.yaml':
        'domain: shared\ndescriptors:\n  - {key: a, rate_limit: {unit: minute, requests_per_unit: 1}}\n',
      'b.yaml':
        'domain: shared\ndescriptors:\n  - {key: b, rate_limit: {unit: minute, requests_per_unit: 2}}\n',
    },
    { MERGE_DOMAIN_CONFIG: 'true' },
  );
  try {
    const response = await t.client.shouldRateLimit(request('shared', ['a=1'], ['b=1']));
    const limits = (response.statuses as Array<Record<string, { requestsPerUnit: number }>>).map(
      (status) => status.currentLimit?.requestsPerUnit,
    );
    assert.deepEqual(limits, [1, 2]);
  } finally {
    await t.stop();
  }
});

test('gRPC health Watch streams the current status and every change', async () => {
  const t = await startTestServer({}, { HEALTHY_WITH_AT_LEAST_ONE_CONFIG_LOADED: 'true' });
  const seen: string[] = [];
  const call = t.client.watch('ratelimit');
  call.on('data', (message: { status: string }) => seen.push(message.status));
  call.on('error', () => {});
  try {
    await eventually(() => seen.length === 1);
    assert.deepEqual(seen, ['NOT_SERVING']);
    t.server.health.ok('config');
    await eventually(() => seen.length === 2);
    assert.deepEqual(seen, ['NOT_SERVING', 'SERVING']);
  } finally {
    call.cancel();
    await t.stop();
  }
});
