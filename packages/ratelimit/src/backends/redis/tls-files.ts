import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { StoreError } from '../../errors.js';

/** The TLS settings both stores share (REDIS_TLS_* and MEMCACHE_TLS_*). */
export interface TlsFileSettings {
  readonly enabled: boolean;
  readonly clientCertFile?: string;
  readonly clientKeyFile?: string;
  readonly caCertFile?: string;
  readonly skipHostnameVerification: boolean;
}

/** Reads the TLS files once, at startup; a missing file is a settings problem, reported as such. */
export function tlsOptions(tls: TlsFileSettings, label: string): ConnectionOptions | undefined {
  if (!tls.enabled) return undefined;
  const read = (file: string | undefined, setting: string) => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(file);
    } catch (error) {
      throw new StoreError(`${label}_${setting}: cannot read '${file}': ${(error as Error).message}`, {
        cause: error,
      });
    }
  };
  const ca = read(tls.caCertFile, 'TLS_CACERT');
  const cert = read(tls.clientCertFile, 'TLS_CLIENT_CERT');
  const key = read(tls.clientKeyFile, 'TLS_CLIENT_KEY');
  return {
    ...(ca ? { ca } : {}),
    ...(cert ? { cert } : {}),
    ...(key ? { key } : {}),
    // Skipping hostname verification still verifies the chain against the CA.
    ...(tls.skipHostnameVerification ? { checkServerIdentity: () => undefined } : {}),
  };
}
