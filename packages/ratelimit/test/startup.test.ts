import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { SettingsError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import { readSettings } from '../src/settings.js';
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
  } finally {
    blocker.close();
  }
});
