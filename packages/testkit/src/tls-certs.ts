import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { requireBinary } from './binaries.js';

const run = promisify(execFile);

export interface TestCertificates {
  readonly dir: string;
  readonly caCert: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** Removes the directory with every file. */
  remove(): Promise<void>;
}

/**
 * Generates a throwaway CA, a server certificate and a client certificate signed by it, with
 * `openssl` (file paths, PEM). `serverNames` become the server's subjectAltName, e.g.
 * ['IP:127.0.0.1', 'DNS:localhost']; pass a name that does not match to test hostname checks.
 */
export async function generateTestCertificates(
  serverNames: string[] = ['IP:127.0.0.1', 'DNS:localhost'],
): Promise<TestCertificates> {
  const openssl = requireBinary('openssl', 'openssl');
  if (typeof openssl !== 'string') throw new Error(openssl.message);
  const dir = await mkdtemp(join(tmpdir(), 'testkit-certs-'));
  const path = (name: string) => join(dir, name);
  const ssl = (args: string[]) => run(openssl, args, { cwd: dir, timeout: 30_000 });
  try {
    await ssl([
      'req',
      '-x509',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-days',
      '2',
      '-keyout',
      path('ca.key'),
      '-out',
      path('ca.crt'),
      '-subj',
      '/CN=testkit CA',
    ]);
    await writeFile(path('server.ext'), `subjectAltName=${serverNames.join(',')}\n`);
    await writeFile(path('client.ext'), 'extendedKeyUsage=clientAuth\n');
    for (const [name, subject] of [
      ['server', '/CN=testkit server'],
      ['client', '/CN=testkit client'],
    ] as const) {
      await ssl([
        'req',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        path(`${name}.key`),
        '-out',
        path(`${name}.csr`),
        '-subj',
        subject,
      ]);
      await ssl([
        'x509',
        '-req',
        '-in',
        path(`${name}.csr`),
        '-CA',
        path('ca.crt'),
        '-CAkey',
        path('ca.key'),
        '-CAcreateserial',
        '-days',
        '2',
        '-out',
        path(`${name}.crt`),
        '-extfile',
        path(`${name}.ext`),
      ]);
    }
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    dir,
    caCert: path('ca.crt'),
    serverCert: path('server.crt'),
    serverKey: path('server.key'),
    clientCert: path('client.crt'),
    clientKey: path('client.key'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
