import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { test } from 'node:test';
import { SettingsError } from '../src/errors.js';
import { silentLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import { readSettings } from '../src/settings.js';

const LOOPBACK = {
  BACKEND_TYPE: 'memory',
  HOST: '127.0.0.1',
  PORT: '0',
  GRPC_HOST: '127.0.0.1',
  GRPC_PORT: '0',
  DEBUG_HOST: '127.0.0.1',
  DEBUG_PORT: '0',
  RUNTIME_ROOT: '/nonexistent-ratelimit-root',
  USE_STATSD: 'false',
};

test('gRPC TLS asked for but not wired in: startup refuses instead of serving plaintext', async () => {
  const settings = readSettings({
    ...LOOPBACK,
    GRPC_SERVER_USE_TLS: 'true',
    GRPC_SERVER_TLS_CERT: '/tls/cert.pem',
    GRPC_SERVER_TLS_KEY: '/tls/key.pem',
  });
  await assert.rejects(startServer(settings, { log: silentLogger }), (error: unknown) => {
    assert.ok(error instanceof SettingsError);
    assert.equal(error.setting, 'GRPC_SERVER_USE_TLS');
    return true;
  });
});

test('CONFIG_TYPE=GRPC_XDS_SOTW without an xDS provider is refused with a clear message', async () => {
  const settings = readSettings({ ...LOOPBACK, CONFIG_TYPE: 'GRPC_XDS_SOTW' });
  await assert.rejects(
    startServer(settings, { log: silentLogger }),
    /^SettingsError: CONFIG_TYPE: GRPC_XDS_SOTW is not available/,
  );
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
