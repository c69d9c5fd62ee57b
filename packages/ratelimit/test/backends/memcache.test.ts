import assert from 'node:assert/strict';
import { Resolver } from 'node:dns/promises';
import { after, before, describe, test } from 'node:test';
import { crc32 } from 'node:zlib';
import {
  generateTestCertificates,
  type ManagedProcess,
  type MemcachedProcess,
  requireBinary,
  serviceSkip,
  spawnManaged,
  startDnsStub,
  startMemcached,
  waitForPort,
} from '@platform/testkit';
import {
  createMemcacheStore,
  MEMCACHE_STATS,
  MemcacheCounterStore,
  readMemcacheSettings,
} from '../../src/backends/memcache/index.js';
import { eventually, hitOf, recordingDeps, uniquePrefix } from './helpers.js';
import { memcacheTtl, memcacheValue } from './memcache-client.js';

const skip = serviceSkip('memcached', 'memcached');

/** A memcached on a given port (startMemcached picks a free one), to restart a stopped node in place. */
async function memcachedOnPort(port: number): Promise<ManagedProcess> {
  const binary = requireBinary('memcached', 'memcached');
  if (typeof binary !== 'string') throw new Error(binary.message);
  const runAs = process.getuid?.() === 0 ? ['-u', 'root'] : [];
  const proc = spawnManaged(binary, ['-l', '127.0.0.1', '-p', String(port), '-U', '0', ...runAs]);
  await waitForPort(port);
  return proc;
}

function storeFor(env: NodeJS.ProcessEnv, deps = recordingDeps(), jitter = 0) {
  return new MemcacheCounterStore(readMemcacheSettings(env), deps, jitter);
}

describe('Memcached store, two nodes', { skip }, () => {
  let nodes: MemcachedProcess[];
  let hostPort: string;
  before(async () => {
    nodes = [await startMemcached(), await startMemcached()];
    hostPort = nodes.map((node) => node.address).join(',');
  });
  after(async () => {
    await Promise.all((nodes ?? []).map((node) => node.stop()));
  });

  test('counts are read in one multi-get, then incremented asynchronously (add on a miss)', async () => {
    const deps = recordingDeps();
    const store = storeFor({ MEMCACHE_HOST_PORT: hostPort }, deps);
    const p = uniquePrefix('mc');
    try {
      // `b` is not ASCII: its UTF-8 bytes go over the wire and must come back as the same key.
      assert.deepEqual(await store.hit([hitOf(`${p}a`, 2), hitOf(`${p}bé漢`, 3)]), [2, 3]);
      await store.flush();
      assert.deepEqual(await store.hit([hitOf(`${p}a`, 1), hitOf(`${p}bé漢`, 0)]), [3, 3]);
      await store.flush();
      assert.deepEqual(await store.hit([hitOf(`${p}a`, 0)]), [3]);
      assert.equal(deps.counters.get(MEMCACHE_STATS.multigetSuccess), 3);
      assert.equal(deps.counters.get(MEMCACHE_STATS.keysRequested), 5);
      assert.equal(deps.counters.get(MEMCACHE_STATS.keysFound), 3);
      assert.equal(deps.counters.get(MEMCACHE_STATS.incrementMiss), 2);
      assert.equal(deps.counters.get(MEMCACHE_STATS.addSuccess), 2);
    } finally {
      await store.close();
    }
  });

  test('each key lives on node crc32(key) % 2, exactly like gomemcache, and every instance agrees', async () => {
    const first = storeFor({ MEMCACHE_HOST_PORT: hostPort });
    const second = storeFor({ MEMCACHE_HOST_PORT: hostPort });
    const p = uniquePrefix('placement');
    const keys = Array.from({ length: 20 }, (_, i) => `${p}${i}`);
    try {
      await first.hit(keys.map((key) => hitOf(key, 1)));
      await first.flush();
      for (const key of keys) {
        const owner = crc32(key) % 2;
        assert.equal(await memcacheValue((nodes[owner] as MemcachedProcess).port, key), '1', key);
        assert.equal(await memcacheValue((nodes[1 - owner] as MemcachedProcess).port, key), undefined, key);
      }
      // Another instance with the same list reads every key from the same node.
      assert.deepEqual(
        await second.hit(keys.map((key) => hitOf(key, 1))),
        keys.map(() => 2),
      );
      // A known CRC32-IEEE value, so the mapping cannot silently drift from gomemcache's.
      assert.equal(crc32('hello'), 907_060_870);
    } finally {
      await first.close();
      await second.close();
    }
  });

  test('the first add sets the TTL: window length plus jitter', async () => {
    const deps = { ...recordingDeps(), random: (max: number) => max - 1 };
    const store = new MemcacheCounterStore(readMemcacheSettings({ MEMCACHE_HOST_PORT: hostPort }), deps, 300);
    const p = uniquePrefix('ttl');
    try {
      await store.hit([hitOf(`${p}m`, 1, 10, 'MINUTE')]);
      await store.flush();
      const owner = nodes[crc32(`${p}m`) % 2] as MemcachedProcess;
      const ttl = await memcacheTtl(owner.port, `${p}m`);
      assert.ok(ttl !== undefined && ttl <= 60 + 299 && ttl >= 60 + 297, `ttl ${ttl}`);
    } finally {
      await store.close();
    }
  });

  test('windows longer than 30 days are sent as absolute expiry times, so the count is kept', async () => {
    const store = storeFor({ MEMCACHE_HOST_PORT: hostPort }, recordingDeps(), 300);
    const p = uniquePrefix('long');
    try {
      await store.hit([hitOf(`${p}month`, 1, 10, 'MONTH'), hitOf(`${p}year`, 1, 10, 'YEAR')]);
      await store.flush();
      for (const [key, seconds] of [
        [`${p}month`, 2_592_000],
        [`${p}year`, 31_536_000],
      ] as const) {
        const owner = nodes[crc32(key) % 2] as MemcachedProcess;
        assert.equal(await memcacheValue(owner.port, key), '1', key);
        const ttl = (await memcacheTtl(owner.port, key)) as number;
        assert.ok(ttl > seconds - 5 && ttl <= seconds + 300, `${key} ttl ${ttl}`);
      }
    } finally {
      await store.close();
    }
  });

  test('concurrent first hits race on add: the losers increment, so no hit is lost', async () => {
    const deps = recordingDeps();
    const store = storeFor({ MEMCACHE_HOST_PORT: hostPort, MEMCACHE_MAX_IDLE_CONNS: '4' }, deps);
    const p = uniquePrefix('race');
    try {
      await Promise.all(Array.from({ length: 30 }, () => store.hit([hitOf(`${p}k`, 1)])));
      await store.flush();
      const owner = nodes[crc32(`${p}k`) % 2] as MemcachedProcess;
      assert.equal(await memcacheValue(owner.port, `${p}k`), '30');
      assert.equal(deps.counters.get(MEMCACHE_STATS.addSuccess), 1);
      const notStored = deps.counters.get(MEMCACHE_STATS.addNotStored) ?? 0;
      const missed = deps.counters.get(MEMCACHE_STATS.incrementMiss) ?? 0;
      assert.equal(missed, 1 + notStored);
    } finally {
      await store.close();
    }
  });

  test('malformed keys (too long, space, control character) count errors, never limit, never crash', async () => {
    const deps = recordingDeps();
    const store = storeFor({ MEMCACHE_HOST_PORT: hostPort }, deps);
    const p = uniquePrefix('malformed');
    try {
      const request = () => [
        hitOf(`${p}${'x'.repeat(250)}`, 1),
        hitOf(`${p}with space`, 1),
        hitOf(`${p}ctrl\u0001`, 1),
        hitOf(`${p}fine`, 1),
      ];
      assert.deepEqual(await store.hit(request()), [1, 1, 1, 1]);
      await store.flush();
      assert.deepEqual(await store.hit(request()), [1, 1, 1, 2]);
      await store.flush();
      assert.equal(deps.counters.get(MEMCACHE_STATS.multigetError), 2);
      assert.equal(deps.counters.get(MEMCACHE_STATS.incrementError), 6);
      assert.ok(deps.logged.some((line) => line.includes('malformed key')));
    } finally {
      await store.close();
    }
  });
});

describe('Memcached store: failure', { skip }, () => {
  test('a stopped memcached fails open (count 0, error counted), and a restarted one is used again', async () => {
    const node = await startMemcached();
    const deps = recordingDeps();
    const store = storeFor({ MEMCACHE_HOST_PORT: node.address }, deps);
    const p = uniquePrefix('down');
    let restarted: ManagedProcess | undefined;
    try {
      await store.hit([hitOf(`${p}k`, 5)]);
      await store.flush();
      await node.stop();
      assert.deepEqual(await store.hit([hitOf(`${p}k`, 1)]), [1]);
      await store.flush();
      assert.equal(deps.counters.get(MEMCACHE_STATS.multigetError), 1);
      assert.equal(deps.counters.get(MEMCACHE_STATS.incrementError), 1);
      restarted = await memcachedOnPort(node.port);
      assert.deepEqual(await store.hit([hitOf(`${p}k`, 1)]), [1]);
      await store.flush();
      assert.deepEqual(await store.hit([hitOf(`${p}k`, 1)]), [2]);
    } finally {
      await store.close();
      await restarted?.stop();
    }
  });
});

test('no servers at all: the store starts, says so loudly, and every call fails open', async () => {
  const deps = recordingDeps();
  const store = storeFor({}, deps);
  try {
    assert.ok(deps.logged.some((line) => line.includes('memcache backend has no servers')));
    assert.deepEqual(await store.hit([hitOf('k', 2)]), [2]);
    assert.equal(deps.counters.get(MEMCACHE_STATS.multigetError), 1);
  } finally {
    await store.close();
  }
});

describe('Memcached store: SRV', { skip }, () => {
  test('servers come from an SRV record (stub DNS on loopback) and are re-resolved every MEMCACHE_SRV_REFRESH', async () => {
    const dns = await startDnsStub();
    const nodes = [await startMemcached(), await startMemcached()];
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.address]);
    const name = '_memcache._tcp.cache.test';
    dns.setSrv(name, [
      { priority: 10, weight: 5, port: (nodes[1] as MemcachedProcess).port, target: '127.0.0.1' },
      { priority: 10, weight: 5, port: (nodes[0] as MemcachedProcess).port, target: '127.0.0.1' },
    ]);
    const store = createMemcacheStore(
      readMemcacheSettings({ MEMCACHE_SRV: name, MEMCACHE_SRV_REFRESH: '100ms' }),
      recordingDeps(),
      0,
      { resolveSrv: (srv) => resolver.resolveSrv(srv) },
    ) as MemcacheCounterStore;
    const p = uniquePrefix('srv');
    try {
      assert.deepEqual(await store.hit([hitOf(`${p}a`, 1)]), [1]);
      const ordered = [...nodes].sort((a, b) => a.port - b.port).map((node) => node.address);
      assert.deepEqual(store.serverAddresses, ordered);
      dns.setSrv(name, [
        { priority: 1, weight: 1, port: (nodes[1] as MemcachedProcess).port, target: '127.0.0.1' },
      ]);
      await eventually(() => store.serverAddresses.length === 1);
      assert.deepEqual(store.serverAddresses, [(nodes[1] as MemcachedProcess).address]);
      await store.flush();
      await store.hit([hitOf(`${p}b`, 7)]);
      await store.flush();
      assert.equal(await memcacheValue((nodes[1] as MemcachedProcess).port, `${p}b`), '7');
    } finally {
      await store.close();
      await dns.stop();
      await Promise.all(nodes.map((node) => node.stop()));
    }
  });

  test('an SRV name that does not resolve is logged and retried; calls fail open meanwhile', async () => {
    const dns = await startDnsStub();
    const resolver = new Resolver({ timeout: 1000, tries: 1 });
    resolver.setServers([dns.address]);
    const deps = recordingDeps();
    const store = createMemcacheStore(
      readMemcacheSettings({ MEMCACHE_SRV: '_none._tcp.cache.test' }),
      deps,
      0,
      {
        resolveSrv: (srv) => resolver.resolveSrv(srv),
      },
    );
    try {
      assert.deepEqual(await store.hit([hitOf('k', 3)], { stopIncrementWhenOverLimit: false }), [3]);
      assert.ok(
        deps.logged.some((line) => line.includes('Unable to fetch servers from SRV _none._tcp.cache.test')),
      );
      assert.equal(deps.counters.get(MEMCACHE_STATS.multigetError), 1);
    } finally {
      await store.close();
      await dns.stop();
    }
  });
});

describe('Memcached store: TLS', { skip }, () => {
  test('MEMCACHE_TLS with the CA, against memcached -Z', async () => {
    const certs = await generateTestCertificates(['IP:127.0.0.1']);
    const node = await startMemcached([
      '-Z',
      '-o',
      `ssl_chain_cert=${certs.serverCert},ssl_key=${certs.serverKey}`,
    ]);
    const store = storeFor({
      MEMCACHE_HOST_PORT: node.address,
      MEMCACHE_TLS: 'true',
      MEMCACHE_TLS_CACERT: certs.caCert,
    });
    const plainDeps = recordingDeps();
    const plain = storeFor({ MEMCACHE_HOST_PORT: node.address }, plainDeps);
    try {
      assert.deepEqual(await store.hit([hitOf('tls', 2)]), [2]);
      await store.flush();
      assert.deepEqual(await store.hit([hitOf('tls', 2)]), [4]);
      // Without TLS the server drops the connection: the call fails open and counts the error.
      assert.deepEqual(await plain.hit([hitOf('tls', 1)]), [1]);
      assert.equal(plainDeps.counters.get(MEMCACHE_STATS.multigetError), 1);
    } finally {
      await store.close();
      await plain.close();
      await node.stop();
      await certs.remove();
    }
  });
});
