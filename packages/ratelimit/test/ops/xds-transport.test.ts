import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { ConfigSource } from '../../src/config/source.js';
import { xdsChannelCredentials } from '../../src/provider/xds/credentials.js';
import { XdsManagementServer } from '../../src/provider/xds/management-server.js';
import { XdsSotwProvider } from '../../src/provider/xds/sotw-provider.js';
import { ReloadingServerCredentials } from '../../src/server/tls/reloading-credentials.js';
import { eventually } from '../helpers/server.js';
import { TestPki } from './test-pki.js';
import { limitYaml, xdsTestSettings } from './xds-test-config.js';

async function configDirectory(t: { after(fn: () => Promise<void>): void }, text: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), 'rl-xds-tls-'));
  t.after(() => rm(directory, { recursive: true }));
  await writeFile(join(directory, 'tls.yaml'), text);
  return directory;
}

test('the xDS client talks mTLS to the management server, checking the SAN override', async (t) => {
  const pki = new TestPki();
  t.after(async () => pki.cleanup());
  const serverPair = pki.issue('xds-server', ['xds.internal']);
  const clientPair = pki.issue('rls', ['rls.internal']);
  const tls = new ReloadingServerCredentials({
    certFile: serverPair.cert,
    keyFile: serverPair.key,
    clientCaFile: pki.path('ca.crt'),
    clientSan: 'rls.internal',
  });
  const management = new XdsManagementServer({
    directory: await configDirectory(t, limitYaml('tls', 4, 'minute')),
    address: '127.0.0.1:0',
    credentials: tls,
  });
  const port = await management.start();
  const applied: ConfigSource[][] = [];
  const provider = new XdsSotwProvider(
    xdsTestSettings(port, {
      useTls: true,
      clientTlsCert: clientPair.cert,
      clientTlsKey: clientPair.key,
      serverTlsCaCert: pki.path('ca.crt'),
      // The server certificate names xds.internal, not the dialled IP: the SAN override makes it match.
      serverTlsSan: 'xds.internal',
    }),
  );
  t.after(async () => {
    await provider.stop();
    await management.stop();
    tls.close();
  });
  await provider.start((sources) => applied.push([...sources]));
  assert.equal(applied[0]?.[0]?.name, 'tls');
  assert.equal(provider.acceptedVersion, '1');
});

test('XDS_CLIENT_MAX_MSG_SIZE_IN_BYTES refuses a larger response, so no config is applied', async (t) => {
  const management = new XdsManagementServer({
    directory: await configDirectory(
      t,
      limitYaml('a-rather-long-domain-name-for-a-large-message', 4, 'minute'),
    ),
    address: '127.0.0.1:0',
  });
  const port = await management.start();
  const warnings: string[] = [];
  const applied: ConfigSource[][] = [];
  const provider = new XdsSotwProvider(xdsTestSettings(port, { maxMessageSizeBytes: 32 }), {
    waitForFirstConfig: false,
    logger: { info() {}, warn: (message) => warnings.push(message) },
  });
  t.after(async () => {
    await provider.stop();
    await management.stop();
  });
  await provider.start((sources) => applied.push([...sources]));
  await eventually(() => warnings.some((w) => /larger than max/i.test(w)));
  assert.equal(applied.length, 0);
});

test('xDS TLS settings with unreadable files or half a client certificate are clear errors', () => {
  assert.throws(
    () =>
      xdsChannelCredentials({ ...xdsTestSettings(0), useTls: true, serverTlsCaCert: '/nonexistent/ca.pem' }),
    /CONFIG_GRPC_XDS_SERVER_TLS_CACERT: cannot read '\/nonexistent\/ca.pem'/,
  );
  assert.throws(
    () => xdsChannelCredentials({ ...xdsTestSettings(0), useTls: true, clientTlsCert: '/dev/null' }),
    /needs both the _CERT and the _KEY file/,
  );
});

test('a provider whose TLS files cannot be read rejects its start instead of throwing', async () => {
  const provider = new XdsSotwProvider(
    xdsTestSettings(1, { useTls: true, serverTlsCaCert: '/nonexistent/ca.pem' }),
  );
  await assert.rejects(
    provider.start(() => {}),
    /CONFIG_GRPC_XDS_SERVER_TLS_CACERT: cannot read/,
  );
  await provider.stop();
});
