import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A throwaway certificate authority made with openssl, for TLS tests on loopback. */
export class TestPki {
  readonly dir = mkdtempSync(join(tmpdir(), 'rl-pki-'));

  constructor() {
    this.#openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', this.path('ca.key')]);
    this.#openssl([
      'req',
      '-x509',
      '-new',
      '-key',
      this.path('ca.key'),
      '-subj',
      '/CN=ratelimit test CA',
      '-days',
      '1',
      '-out',
      this.path('ca.crt'),
    ]);
  }

  path(name: string): string {
    return join(this.dir, name);
  }

  /** Issues `<name>.crt` and `<name>.key` for the given DNS names, signed by the test CA. */
  issue(name: string, dnsNames: readonly string[]): { cert: string; key: string } {
    const key = this.path(`${name}.key`);
    const cert = this.path(`${name}.crt`);
    const csr = this.path(`${name}.csr`);
    const extensions = this.path(`${name}.ext`);
    writeFileSync(extensions, `subjectAltName=${dnsNames.map((dns) => `DNS:${dns}`).join(',')}\n`);
    this.#openssl(['ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', key]);
    this.#openssl(['req', '-new', '-key', key, '-subj', `/CN=${dnsNames[0] ?? name}`, '-out', csr]);
    this.#openssl([
      'x509',
      '-req',
      '-in',
      csr,
      '-CA',
      this.path('ca.crt'),
      '-CAkey',
      this.path('ca.key'),
      '-CAcreateserial',
      '-days',
      '1',
      '-extfile',
      extensions,
      '-out',
      cert,
    ]);
    return { cert, key };
  }

  cleanup(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }

  #openssl(args: string[]): void {
    execFileSync('openssl', args, { stdio: 'pipe' });
  }
}
