import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { type ObservedRequest, XdsManagementServer } from '../../src/provider/xds/management-server.js';
import { counter, eventually, request, startTestServer } from '../helpers/server.js';
import { limitYaml } from './xds-test-config.js';

test('CONFIG_TYPE=GRPC_XDS_SOTW: the server serves xDS configs, NACKs a bad one and survives a management server restart', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'rl-xds-e2e-'));
  t.after(() => rm(directory, { recursive: true }));
  await writeFile(join(directory, 'xds.yaml'), limitYaml('xds', 50, 'second'));
  const observed: ObservedRequest[] = [];
  let management = new XdsManagementServer({ directory, address: '127.0.0.1:0' });
  management.on('request', (r) => observed.push(r));
  const port = await management.start();
  const server = await startTestServer(
    {},
    {
      CONFIG_TYPE: 'GRPC_XDS_SOTW',
      CONFIG_GRPC_XDS_SERVER_URL: `127.0.0.1:${port}`,
      CONFIG_GRPC_XDS_NODE_ID: 'rls-1',
      CONFIG_GRPC_XDS_NODE_METADATA: 'zone=eu',
      CONFIG_GRPC_XDS_CLIENT_ADDITIONAL_HEADERS: 'authorization:Bearer t0ken',
      CONFIG_GRPC_XDS_SERVER_CONNECT_RETRY_INTERVAL: '50ms',
      XDS_CLIENT_BACKOFF_INITIAL_INTERVAL: '50ms',
      XDS_CLIENT_BACKOFF_MAX_INTERVAL: '200ms',
    },
  );
  t.after(async () => {
    await server.stop();
    await management.stop();
  });
  const limitOf = async () => {
    const response = await server.client.shouldRateLimit(request('xds', ['k=v']));
    return (response.statuses as Array<{ currentLimit?: { requestsPerUnit: number; unit: string } }>)[0]
      ?.currentLimit;
  };

  // Initial config: startup waited for it.
  assert.deepEqual(await limitOf(), { requestsPerUnit: 50, unit: 'SECOND', name: '' });
  const subscribe = observed[0];
  assert.equal(subscribe?.request.node?.id, 'rls-1');
  assert.equal(subscribe?.request.node?.metadata?.fields.zone?.stringValue, 'eu');
  assert.equal(subscribe?.headers.authorization, 'Bearer t0ken');

  // Update.
  await writeFile(join(directory, 'xds.yaml'), limitYaml('xds', 10, 'minute'));
  await management.reload();
  await eventually(async () => (await limitOf())?.requestsPerUnit === 10);

  // A config the loader rejects: NACK with its text, the previous config keeps serving.
  const errorsBefore = counter(server.server, 'ratelimit.service.config_load_error');
  await writeFile(
    join(directory, 'bad.yaml'),
    'domain: bad\ndescriptors:\n  - key: a\n    rate_limit: { requests_per_unit: 1 }\n',
  );
  await management.reload();
  await eventually(() => observed.some((o) => o.request.error_detail));
  const nack = observed.find((o) => o.request.error_detail)?.request;
  assert.match(nack?.error_detail?.message ?? '', /bad/);
  assert.equal(nack?.version_info, '2');
  assert.equal(counter(server.server, 'ratelimit.service.config_load_error'), errorsBefore + 1);
  assert.deepEqual(await limitOf(), { requestsPerUnit: 10, unit: 'MINUTE', name: '' });

  // The management server restarts with a fixed directory; the client reconnects and applies it.
  await management.stop();
  await rm(join(directory, 'bad.yaml'));
  await writeFile(join(directory, 'xds.yaml'), limitYaml('xds', 3, 'hour'));
  management = new XdsManagementServer({ directory, address: `127.0.0.1:${port}` });
  await management.start();
  await eventually(async () => (await limitOf())?.requestsPerUnit === 3, 15_000);
});
