import { readFileSync } from 'node:fs';
import type { ConnectionOptions } from 'node:tls';
import { SettingsError, StoreError } from '../../errors.js';
import type { PrefixedEnv } from './env-values.js';

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

/** Reads <PREFIX>TLS, _TLS_CLIENT_CERT, _TLS_CLIENT_KEY, _TLS_CACERT and _TLS_SKIP_HOSTNAME_VERIFICATION. */
export function readTlsFileSettings(reader: PrefixedEnv): TlsFileSettings {
  const clientCertFile = reader.optionalString('TLS_CLIENT_CERT');
  const clientKeyFile = reader.optionalString('TLS_CLIENT_KEY');
  const caCertFile = reader.optionalString('TLS_CACERT');
  if ((clientCertFile === undefined) !== (clientKeyFile === undefined)) {
    throw new SettingsError(
      reader.primary(clientCertFile === undefined ? 'TLS_CLIENT_CERT' : 'TLS_CLIENT_KEY'),
      `a client certificate needs both ${reader.primary('TLS_CLIENT_CERT')} and ${reader.primary('TLS_CLIENT_KEY')}`,
    );
  }
  return {
    enabled: reader.bool('TLS', false),
    ...(clientCertFile ? { clientCertFile } : {}),
    ...(clientKeyFile ? { clientKeyFile } : {}),
    ...(caCertFile ? { caCertFile } : {}),
    skipHostnameVerification: reader.bool('TLS_SKIP_HOSTNAME_VERIFICATION', false),
  };
}
