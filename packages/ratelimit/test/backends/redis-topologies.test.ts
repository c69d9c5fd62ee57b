import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import {
  freePort,
  generateTestCertificates,
  redisCli,
  serviceSkip,
  startRedis,
  startRedisCluster,
  startRedisSentinel,
  type TestCertificates,
} from '@platform/testkit';
import { createRedisStore, readRedisSettings } from '../../src/backends/redis/index.js';
import { StoreError } from '../../src/errors.js';
import {
  assertTtl,
  eventually,
  hitOf,
  IMMEDIATE_REPLICA_SYNC,
  recordingDeps,
  uniquePrefix,
} from './helpers.js';

const skip = serviceSkip('redis-server', 'redis-server');
const noStop = { stopIncrementWhenOverLimit: false };

/** A redis-server with a TLS port (beside its plain one, which the harness waits for). */
async function startTlsRedis(certs: TestCertificates, authClients: 'yes' | 'no') {
  const tlsPort = await freePort();
  const redis = await startRedis({
    args: [
      ...['--tls-port', String(tlsPort), '--tls-cert-file', certs.serverCert],
      ...['--tls-key-file', certs.serverKey, '--tls-ca-cert-file', certs.caCert],
      ...['--tls-auth-clients', authClients],
    ],
  });
  return { redis, tlsPort };
}

describe('Redis store: TLS', { skip }, () => {
  test('REDIS_TLS with a CA and a client certificate (tls-auth-clients yes), and the failures around it', async () => {
    const certs = await generateTestCertificates(['IP:127.0.0.1', 'DNS:localhost']);
    const { redis, tlsPort } = await startTlsRedis(certs, 'yes');
    const base = { REDIS_URL: `127.0.0.1:${tlsPort}`, REDIS_TLS: 'true', REDIS_TLS_CACERT: certs.caCert };
    const withCert = createRedisStore(
      readRedisSettings({
        ...base,
        REDIS_TLS_CLIENT_CERT: certs.clientCert,
        REDIS_TLS_CLIENT_KEY: certs.clientKey,
      }),
      recordingDeps(),
      0,
    );
    const withoutCert = createRedisStore(readRedisSettings(base), recordingDeps(), 0);
    const plainToTls = createRedisStore(
      readRedisSettings({ REDIS_URL: `127.0.0.1:${tlsPort}`, REDIS_TIMEOUT: '500ms' }),
      recordingDeps(),
      0,
    );
    try {
      assert.deepEqual(await withCert.hit([hitOf('tls', 4)], noStop), [4]);
      assert.equal(await redisCli(redis.port, ['get', 'tls']), '4');
      await assert.rejects(withoutCert.hit([hitOf('tls')], noStop), StoreError);
      await assert.rejects(plainToTls.hit([hitOf('tls')], noStop), StoreError);
    } finally {
      await Promise.all([withCert.close(), withoutCert.close(), plainToTls.close()]);
      await redis.stop();
      await certs.remove();
    }
  });

  test('REDIS_TLS through sentinels: the sentinel over plain TCP, the master it names over TLS', async () => {
    const certs = await generateTestCertificates(['IP:127.0.0.1', 'DNS:localhost']);
    const { redis, tlsPort } = await startTlsRedis(certs, 'no');
    const dir = await mkdtemp(join(tmpdir(), 'rl-tls-sentinel-'));
    const configFile = join(dir, 'sentinel.conf');
    const config = [
      `sentinel monitor tlsmaster 127.0.0.1 ${tlsPort} 1`,
      'tls-replication yes',
      `tls-cert-file ${certs.serverCert}`,
      `tls-key-file ${certs.serverKey}`,
      `tls-ca-cert-file ${certs.caCert}`,
    ];
    await writeFile(configFile, `${config.join('\n')}\n`);
    const sentinel = await startRedis({ port: await freePort(), configFile, args: ['--sentinel'] });
    const store = createRedisStore(
      readRedisSettings({
        REDIS_TYPE: 'sentinel',
        REDIS_URL: `tlsmaster,${sentinel.address}`,
        REDIS_TLS: 'true',
        REDIS_TLS_CACERT: certs.caCert,
        REDIS_POOL_SIZE: '1',
      }),
      recordingDeps(),
      0,
    );
    try {
      assert.deepEqual(await store.hit([hitOf('tls-sentinel', 5)], noStop), [5]);
      assert.equal(await redisCli(redis.port, ['get', 'tls-sentinel']), '5');
    } finally {
      await store.close();
      await sentinel.stop();
      await redis.stop();
      await certs.remove();
      await rm(dir, { recursive: true, force: true });
    }
  });

  test('REDIS_TLS_SKIP_HOSTNAME_VERIFICATION accepts a certificate for another name, still checking the CA', async () => {
    const certs = await generateTestCertificates(['DNS:redis.internal.example']);
    const { redis, tlsPort } = await startTlsRedis(certs, 'no');
    const base = { REDIS_URL: `127.0.0.1:${tlsPort}`, REDIS_TLS: 'true', REDIS_TLS_CACERT: certs.caCert };
    const strict = createRedisStore(readRedisSettings(base), recordingDeps(), 0);
    const skipping = createRedisStore(
      readRedisSettings({ ...base, REDIS_TLS_SKIP_HOSTNAME_VERIFICATION: 'true' }),
      recordingDeps(),
      0,
    );
    const untrusted = createRedisStore(
      readRedisSettings({
        REDIS_URL: `127.0.0.1:${tlsPort}`,
        REDIS_TLS: 'true',
        REDIS_TLS_SKIP_HOSTNAME_VERIFICATION: 'true',
      }),
      recordingDeps(),
      0,
    );
    try {
      await assert.rejects(strict.hit([hitOf('name')], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /Hostname\/IP does not match certificate's altnames/);
        return true;
      });
      assert.deepEqual(await skipping.hit([hitOf('name', 2)], noStop), [2]);
      await assert.rejects(untrusted.hit([hitOf('name')], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(error.message, /self[- ]signed certificate|unable to (get|verify)/i);
        return true;
      });
    } finally {
      await Promise.all([strict.close(), skipping.close(), untrusted.close()]);
      await redis.stop();
      await certs.remove();
    }
  });

  test('a TLS file that cannot be read is reported when the store is created', () => {
    assert.throws(
      () =>
        createRedisStore(
          readRedisSettings({ REDIS_TLS: 'true', REDIS_TLS_CACERT: '/nonexistent/ca.pem' }),
          recordingDeps(),
          0,
        ),
      /REDIS_TLS_CACERT: cannot read '\/nonexistent\/ca.pem'/,
    );
  });
});

describe('Redis store: cluster', { skip }, () => {
  test('three masters: one request whose keys live in different slots on different nodes', async () => {
    const cluster = await startRedisCluster({ masters: 3 });
    const store = createRedisStore(
      readRedisSettings({
        REDIS_TYPE: 'cluster',
        REDIS_URL: cluster.addresses,
        REDIS_PIPELINE_WINDOW: '1ms',
        REDIS_POOL_SIZE: '2',
      }),
      recordingDeps(),
      0,
    );
    try {
      const p = uniquePrefix('cluster');
      const keys = Array.from({ length: 12 }, (_, i) => `${p}k${i}`);
      assert.deepEqual(
        await store.hit(
          keys.map((key, i) => hitOf(key, i + 1)),
          noStop,
        ),
        keys.map((_, i) => i + 1),
      );
      assert.deepEqual(
        await store.hit(
          keys.map((key) => hitOf(key, 1)),
          { stopIncrementWhenOverLimit: true },
        ),
        keys.map((_, i) => i + 2),
      );
      // Every node holds some of the keys: the request really spanned slots and nodes.
      const perNode = await Promise.all(cluster.nodes.map((node) => redisCli(node.port, ['dbsize'])));
      assert.equal(perNode.length, 3);
      for (const count of perNode) assert.ok(Number(count) > 0, `a node holds no key: ${perNode.join(',')}`);
      assert.equal(
        perNode.reduce((sum, count) => sum + Number(count), 0),
        keys.length,
      );
      const slots = new Set(
        await Promise.all(
          keys.map((key) => redisCli(cluster.nodes[0]?.port ?? 0, ['cluster', 'keyslot', key])),
        ),
      );
      assert.ok(slots.size > 3);
      const ttl = await redisCli(cluster.nodes[0]?.port ?? 0, ['-c', 'ttl', keys[0] as string]);
      assertTtl(ttl, 60);
    } finally {
      await store.close();
      await cluster.stop();
    }
  });
});

describe('Redis store: sentinel', { skip }, () => {
  test('fail-over during traffic: no wrong count, and service is back within the fail-over time', async () => {
    const downAfterMs = 1000;
    const failoverTimeoutMs = 2000;
    const setup = await startRedisSentinel({
      sentinels: 3,
      downAfterMs,
      failoverTimeoutMs,
      dataArgs: IMMEDIATE_REPLICA_SYNC,
    });
    const store = createRedisStore(
      readRedisSettings({
        REDIS_TYPE: 'sentinel',
        REDIS_URL: setup.url,
        REDIS_POOL_SIZE: '2',
        REDIS_TIMEOUT: '1s',
      }),
      recordingDeps(),
      0,
    );
    const key = `${uniquePrefix('sentinel')}k`;
    const seen: number[] = [];
    const failures: unknown[] = [];
    let running = true;
    let killedAt = 0;
    let recoveredAt = 0;
    let promotedAt = 0;
    const traffic = (async () => {
      while (running) {
        try {
          const [value] = await store.hit([hitOf(key)], noStop);
          seen.push(value as number);
          if (killedAt && !recoveredAt && failures.length > 0) recoveredAt = Date.now();
        } catch (error) {
          failures.push(error);
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
      }
    })();
    try {
      await eventually(() => seen.length > 100);
      killedAt = Date.now();
      await setup.master.stop();
      // The sentinels' own fail-over time varies (a split vote retries after 2 x failover-timeout),
      // so the client is measured against the moment they name the new master.
      await setup.waitForMaster(setup.replica.address, 30_000);
      promotedAt = Date.now();
      await eventually(() => recoveredAt > 0, 10_000);
      const before = seen.length;
      await eventually(() => seen.length > before + 100);
    } finally {
      running = false;
      await traffic;
      await store.close();
      await setup.stop();
    }
    // Service is back within the fail-over time: at most the reconnect backoff (1 s) plus a
    // connection after the sentinels promoted the replica.
    assert.ok(
      recoveredAt - promotedAt < 2500,
      `recovered ${recoveredAt - promotedAt} ms after the promotion (${recoveredAt - killedAt} ms after the kill)`,
    );
    // Never a wrong decision: the count only goes up, one per successful call (the replica had
    // every acknowledged increment), whatever failed during the switch.
    for (let i = 1; i < seen.length; i++) {
      assert.ok(
        (seen[i] as number) > (seen[i - 1] as number),
        `count went from ${seen[i - 1]} to ${seen[i]}`,
      );
    }
    assert.ok((seen.at(-1) as number) >= seen.length);
    assert.ok((seen.at(-1) as number) <= seen.length + failures.length);
    for (const failure of failures) assert.ok(failure instanceof StoreError, String(failure));
  });

  test('a master name the sentinels do not know, or no sentinel answering, fails calls with a clear error', async () => {
    const setup = await startRedisSentinel({ sentinels: 1, dataArgs: IMMEDIATE_REPLICA_SYNC });
    const sentinels = setup.url.split(',').slice(1).join(',');
    const unknown = createRedisStore(
      readRedisSettings({
        REDIS_TYPE: 'sentinel',
        REDIS_URL: `nosuchmaster,${sentinels}`,
        REDIS_POOL_SIZE: '1',
      }),
      recordingDeps(),
      0,
    );
    const unreachable = createRedisStore(
      readRedisSettings({
        REDIS_TYPE: 'sentinel',
        REDIS_URL: `mymaster,127.0.0.1:${await freePort()}`,
        REDIS_POOL_SIZE: '1',
      }),
      recordingDeps(),
      0,
    );
    try {
      await assert.rejects(unknown.hit([hitOf('k')], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(
          error.message,
          /cannot find the master 'nosuchmaster' through the sentinels: sentinel .* does not know master 'nosuchmaster'/,
        );
        return true;
      });
      await assert.rejects(unreachable.hit([hitOf('k')], noStop), (error: unknown) => {
        assert.ok(error instanceof StoreError);
        assert.match(
          error.message,
          /cannot find the master 'mymaster' through the sentinels: .*ECONNREFUSED/,
        );
        return true;
      });
    } finally {
      await unknown.close();
      await unreachable.close();
      await setup.stop();
    }
  });

  test('REDIS_SENTINEL_AUTH authenticates to password-protected sentinels, REDIS_AUTH to the data nodes', async () => {
    const setup = await startRedisSentinel({
      sentinels: 2,
      dataArgs: [...IMMEDIATE_REPLICA_SYNC, '--requirepass', 'datapw'],
      dataPassword: 'datapw',
      sentinelConfig: ['requirepass sentinelpw'],
    });
    const good = createRedisStore(
      readRedisSettings({
        REDIS_TYPE: 'sentinel',
        REDIS_URL: setup.url,
        REDIS_AUTH: 'datapw',
        REDIS_SENTINEL_AUTH: 'sentinelpw',
        REDIS_POOL_SIZE: '1',
      }),
      recordingDeps(),
      0,
    );
    try {
      assert.deepEqual(await good.hit([hitOf('sentinel-auth', 3)], noStop), [3]);
      assert.equal(
        await redisCli(setup.master.port, ['-a', 'datapw', '--no-auth-warning', 'get', 'sentinel-auth']),
        '3',
      );
    } finally {
      await good.close();
      await setup.stop();
    }
  });
});
