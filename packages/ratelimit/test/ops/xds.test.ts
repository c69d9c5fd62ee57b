import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { Server, ServerCredentials, type ServerDuplexStream } from '@grpc/grpc-js';
import type { ConfigSource } from '../../src/config/source.js';
import { backoffDelay } from '../../src/provider/xds/backoff.js';
import type { YamlDescriptor, YamlDocument } from '../../src/provider/xds/convert.js';
import { type ObservedRequest, XdsManagementServer } from '../../src/provider/xds/management-server.js';
import type { DiscoveryRequest, DiscoveryResponse } from '../../src/provider/xds/messages.js';
import { adsServiceDefinition, rateLimitConfigTypeUrl } from '../../src/provider/xds/protos.js';
import { XdsSotwProvider } from '../../src/provider/xds/sotw-provider.js';
import { eventually } from '../helpers/server.js';
import { limitYaml, xdsTestSettings } from './xds-test-config.js';

/** A stand-in for the config loader: rejects a limit without a unit, as the reference's validation does. */
function validatingApply(applied: ConfigSource[][]) {
  const check = (name: string, descriptors: YamlDescriptor[] = []) => {
    for (const descriptor of descriptors) {
      const limit = descriptor.rate_limit;
      if (limit && limit.unit === 'UNKNOWN' && !limit.unlimited) {
        throw new Error(`${name}: invalid rate limit unit '${limit.unit}'`);
      }
      check(name, descriptor.descriptors);
    }
  };
  return (sources: readonly ConfigSource[]) => {
    for (const source of sources) {
      if (source.kind === 'object') check(source.name, (source.value as YamlDocument).descriptors);
    }
    applied.push([...sources]);
  };
}

/** The rate limit of the first descriptor of the first document in an applied set. */
function firstLimit(sources: ConfigSource[] | undefined) {
  const source = sources?.[0];
  assert.equal(source?.kind, 'object');
  return (source.value as YamlDocument).descriptors?.[0]?.rate_limit;
}

test('xDS SotW: initial config, update, NACK with the old config kept, and reconnect after a server restart', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'rl-xds-'));
  t.after(() => rm(directory, { recursive: true }));
  await writeFile(join(directory, 'basic.yaml'), limitYaml('basic', 50, 'second'));
  const observed: ObservedRequest[] = [];
  let server = new XdsManagementServer({ directory, address: '127.0.0.1:0' });
  server.on('request', (request) => observed.push(request));
  const port = await server.start();
  const applied: ConfigSource[][] = [];
  const provider = new XdsSotwProvider(
    xdsTestSettings(port, { nodeMetadata: { zone: 'a' }, additionalHeaders: { 'x-token': 'secret' } }),
  );
  t.after(async () => {
    await provider.stop();
    await server.stop();
  });

  // Initial config: start() resolves once it applied.
  await provider.start(validatingApply(applied));
  assert.deepEqual(applied[0], [
    {
      kind: 'object',
      name: 'basic',
      value: {
        domain: 'basic',
        descriptors: [{ key: 'k', rate_limit: { unit: 'SECOND', requests_per_unit: 50 } }],
      },
    },
  ]);
  await eventually(() => observed.some((o) => o.request.response_nonce !== ''));
  const [subscribe, ack] = observed;
  assert.equal(subscribe?.request.node?.id, 'test-node');
  assert.deepEqual(subscribe?.request.node?.metadata?.fields.zone?.stringValue, 'a');
  assert.equal(
    subscribe?.request.type_url,
    'type.googleapis.com/ratelimit.config.ratelimit.v3.RateLimitConfig',
  );
  assert.equal(subscribe?.headers['x-token'], 'secret');
  assert.equal(ack?.request.version_info, '1');
  assert.equal(ack?.request.error_detail, null);

  // Update: state of the world replaces the config, then an ACK for version 2.
  await writeFile(join(directory, 'basic.yaml'), limitYaml('basic', 10, 'minute'));
  assert.equal(await server.reload(), true);
  await eventually(() => provider.acceptedVersion === '2');
  assert.deepEqual(firstLimit(applied.at(-1)), {
    unit: 'MINUTE',
    requests_per_unit: 10,
  });

  // A config the loader rejects: NACK with its error text; version 2 stays in force.
  await writeFile(
    join(directory, 'broken.yaml'),
    'domain: broken\ndescriptors:\n  - key: k\n    rate_limit:\n      requests_per_unit: 5\n',
  );
  await server.reload();
  await eventually(() => observed.some((o) => o.request.error_detail));
  const nack = observed.find((o) => o.request.error_detail)?.request;
  assert.equal(nack?.version_info, '2');
  assert.match(nack?.error_detail?.message ?? '', /broken: invalid rate limit unit 'UNKNOWN'/);
  // Like go-control-plane's ADS client, the reference's: the text, with code 0.
  assert.equal(nack?.error_detail?.code, 0);
  assert.equal(provider.acceptedVersion, '2');
  assert.equal(applied.length, 2);

  // The management server goes away and comes back on the same port with a fixed config.
  await server.stop();
  await rm(join(directory, 'broken.yaml'));
  await writeFile(join(directory, 'basic.yaml'), limitYaml('basic', 7, 'hour'));
  server = new XdsManagementServer({ directory, address: `127.0.0.1:${port}` });
  await server.start();
  await eventually(() => applied.length === 3, 15_000);
  assert.deepEqual(firstLimit(applied[2]), {
    unit: 'HOUR',
    requests_per_unit: 7,
  });
});

test('an undecodable resource is NACKed without calling ApplyConfig', async (t) => {
  // A hand-rolled ADS server that answers the subscription with bytes that are no RateLimitConfig.
  const requests: DiscoveryRequest[] = [];
  const server = new Server();
  server.addService(adsServiceDefinition, {
    StreamAggregatedResources: (call: ServerDuplexStream<DiscoveryRequest, DiscoveryResponse>) => {
      call.on('data', (request: DiscoveryRequest) => {
        requests.push(request);
        if (request.response_nonce !== '') return;
        call.write({
          version_info: 'v1',
          type_url: rateLimitConfigTypeUrl,
          nonce: 'n1',
          resources: [{ type_url: rateLimitConfigTypeUrl, value: Buffer.from([0x0a, 0xff, 0xff]) }],
        });
      });
    },
  });
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) =>
      e ? reject(e) : resolve(p),
    ),
  );
  const applied: ConfigSource[][] = [];
  const provider = new XdsSotwProvider(xdsTestSettings(port), { waitForFirstConfig: false });
  t.after(async () => {
    await provider.stop();
    server.forceShutdown();
  });
  await provider.start(validatingApply(applied));
  await eventually(() => requests.some((request) => request.error_detail));
  const nack = requests.find((request) => request.error_detail);
  assert.equal(nack?.response_nonce, 'n1');
  assert.equal(nack?.version_info, '');
  assert.match(nack?.error_detail?.message ?? '', /cannot decode RateLimitConfig resources/);
  assert.equal(applied.length, 0);
});

test('backoff follows the reference: the default factor keeps the initial interval, a factor above 1 grows', () => {
  const base = { initialIntervalMs: 10_000, maxIntervalMs: 60_000, jitter: false };
  assert.deepEqual(
    [0, 1, 5].map((attempt) => backoffDelay({ ...base, randomFactor: 0.5 }, attempt)),
    [10_000, 10_000, 10_000],
  );
  assert.deepEqual(
    [0, 1, 2, 3].map((attempt) => backoffDelay({ ...base, randomFactor: 2 }, attempt)),
    [10_000, 20_000, 40_000, 60_000],
  );
  const jittered = backoffDelay({ ...base, randomFactor: 2, jitter: true }, 2, () => 0.5);
  assert.equal(jittered, 25_000);
});
