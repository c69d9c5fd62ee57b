import assert from 'node:assert/strict';
import { test } from 'node:test';
import { freePort } from '@platform/testkit';
import { GuardedConnector } from '../../src/backends/redis/connectors.js';

test('a connecting socket that errors twice (a failed TLS handshake, then the alert) does not throw', async () => {
  // Nothing listens on the port: the socket fails on its own as well, which is fine.
  const connector = new GuardedConnector({ host: '127.0.0.1', port: await freePort() });
  const stream = await connector.connect();
  const firstError = new Error('Hostname/IP does not match certificate altnames');
  stream.emit('error', firstError);
  assert.doesNotThrow(() => stream.emit('error', new Error('tlsv1 alert decode error')));
  assert.equal(connector.firstError, firstError);
  stream.destroy();
});
