import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import protobuf from 'protobufjs';
import { loadConfig } from '../../src/config/loader.js';
import type { ConfigSource } from '../../src/config/source.js';
import type { RateLimitConfig } from '../../src/config/tree.js';
import {
  decodeRateLimitConfig,
  encodeRateLimitConfig,
  toYamlDocument,
} from '../../src/provider/xds/convert.js';
import { XdsManagementServer } from '../../src/provider/xds/management-server.js';
import { XdsSotwProvider } from '../../src/provider/xds/sotw-provider.js';
import { xdsTestSettings } from './xds-test-config.js';

const YAML = `domain: api
descriptors:
  - key: burst
    rate_limit: {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 5}
  - key: tenant
    rate_limits:
      - {unit: second, requests_per_unit: 3, unit_multiplier: 10}
      - {unit: minute, requests_per_unit: 4, algorithm: sliding_window, name: per_minute}
`;

test('rls_conf.proto carries the new fields under numbers from 1001', () => {
  const bytes = encodeRateLimitConfig('api', {
    domain: 'api',
    descriptors: [
      {
        key: 'k',
        rate_limits: [
          { unit: 'second', requests_per_unit: 1, algorithm: 'token_bucket', burst: 7, unit_multiplier: 3 },
        ],
      },
    ],
  });
  // Walk the wire form by hand: descriptor (3) -> rate_limits (1001) -> algorithm 1001, burst 1002, unit_multiplier 1003.
  const fields = (data: Uint8Array) => {
    const reader = protobuf.Reader.create(data);
    const found: [number, number | Uint8Array][] = [];
    while (reader.pos < reader.len) {
      const tag = reader.uint32();
      const number = tag >>> 3;
      found.push([number, (tag & 7) === 2 ? reader.bytes() : reader.uint32()]);
    }
    return found;
  };
  const descriptor = fields(bytes).find(([n]) => n === 3)?.[1] as Uint8Array;
  const policy = fields(descriptor).find(([n]) => n === 1001)?.[1] as Uint8Array;
  assert.deepEqual(
    fields(policy).filter(([n]) => n > 1000),
    [
      [1001, 2],
      [1002, 7],
      [1003, 3],
    ],
  );
  assert.throws(
    () =>
      encodeRateLimitConfig('bad', {
        domain: 'd',
        descriptors: [{ key: 'k', rate_limit: { unit: 'second', requests_per_unit: 1, algorithm: 'leaky' } }],
      }),
    /bad: unknown algorithm 'leaky'/,
  );
});

test('a RateLimitConfig with the new fields becomes the same config as its YAML', async () => {
  const { parse } = await import('yaml');
  const fromXds = toYamlDocument(decodeRateLimitConfig(encodeRateLimitConfig('api', parse(YAML))));
  const viaXds = loadConfig([{ kind: 'object', name: 'api', value: fromXds }], false);
  const viaYaml = loadConfig([{ kind: 'yaml', name: 'api', text: YAML }], false);
  assert.deepEqual(viaXds.rules, viaYaml.rules);
  assert.equal(viaXds.rules[1]?.limits[1]?.name, 'per_minute');
});

test('a management server serves the new fields, and the service loads them', async (t) => {
  const directory = await mkdtemp(join(tmpdir(), 'rl-xds-algorithms-'));
  t.after(() => rm(directory, { recursive: true }));
  await writeFile(join(directory, 'api.yaml'), YAML);
  const server = new XdsManagementServer({ directory, address: '127.0.0.1:0' });
  const port = await server.start();
  const provider = new XdsSotwProvider(xdsTestSettings(port));
  t.after(async () => {
    await provider.stop();
    await server.stop();
  });
  let loaded: RateLimitConfig | undefined;
  await provider.start((sources: readonly ConfigSource[]) => {
    loaded = loadConfig(sources, false);
  });
  const [bucket, tenant] = loaded?.rules ?? [];
  assert.deepEqual(bucket?.limits[0]?.params, { kind: 'token_bucket', windowMs: 1000, rate: 2 });
  assert.equal(bucket?.limits[0]?.threshold, 5);
  assert.deepEqual(
    tenant?.limits.map((limit) => [limit.algorithm, limit.windowSeconds]),
    [
      ['fixed_window', 10],
      ['sliding_window', 60],
    ],
  );
});
