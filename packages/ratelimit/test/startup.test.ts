import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { MemoryStore } from '../src/backends/memory.js';
import { SettingsError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import { readSettings } from '../src/settings.js';
import { StatStore } from '../src/stats/store.js';
import { loopbackEnv } from './helpers/server.js';

const LOOPBACK = loopbackEnv('/nonexistent-ratelimit-root');

test('gRPC TLS with unreadable certificate files: startup refuses with a clear message', async () => {
  const settings = readSettings({
    ...LOOPBACK,
    GRPC_SERVER_USE_TLS: 'true',
    GRPC_SERVER_TLS_CERT: '/tls/cert.pem',
    GRPC_SERVER_TLS_KEY: '/tls/key.pem',
  });
  await assert.rejects(startServer(settings, { log: silentLogger }), (error: unknown) => {
    assert.ok(error instanceof SettingsError);
    assert.equal(error.setting, 'GRPC_SERVER_TLS_CERT');
    assert.match(error.message, /cannot load the gRPC server certificate '\/tls\/cert.pem'/);
    return true;
  });
});

test('a port in use rejects startup and releases everything already opened', async () => {
  const blocker = createServer();
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  try {
    const settings = readSettings({ ...LOOPBACK, PORT: String(port) });
    await assert.rejects(startServer(settings, { log: silentLogger }), /EADDRINUSE/);
    // The same teardown as close(): the store and the config provider that had started are stopped.
    const stopped: string[] = [];
    const store = new MemoryStore(
      { stats: new StatStore(), log: silentLogger, now: () => 0, random: () => 0 },
      { maxCounters: 10, maxBytes: 1 << 24 },
    );
    const closeStore = store.close.bind(store);
    store.close = () => {
      stopped.push('store');
      return closeStore();
    };
    const provider = {
      start: async () => {},
      stop: async () => {
        stopped.push('provider');
      },
    };
    await assert.rejects(startServer(settings, { log: silentLogger, store, provider }), /EADDRINUSE/);
    assert.deepEqual(stopped, ['provider', 'store']);
  } finally {
    blocker.close();
  }
});
