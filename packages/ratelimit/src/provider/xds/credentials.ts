import { readFileSync } from 'node:fs';
import { type ChannelCredentials, credentials } from '@grpc/grpc-js';
import { SettingsError } from '../../errors.js';

/** CONFIG_GRPC_XDS_SERVER_USE_TLS and its files. */
export interface XdsTlsSettings {
  readonly useTls: boolean;
  readonly clientTlsCert: string;
  readonly clientTlsKey: string;
  readonly serverTlsCaCert: string;
  /** Overrides the name the server certificate is checked against. */
  readonly serverTlsSan: string;
}

function read(setting: string, path: string): Buffer | null {
  if (path === '') return null;
  try {
    return readFileSync(path);
  } catch (error) {
    throw new SettingsError(setting, `cannot read '${path}': ${(error as Error).message}`);
  }
}

/** Channel credentials and options for the connection to the management server. */
export function xdsChannelCredentials(settings: XdsTlsSettings): {
  credentials: ChannelCredentials;
  options: Record<string, string>;
} {
  if (!settings.useTls) return { credentials: credentials.createInsecure(), options: {} };
  const ca = read('CONFIG_GRPC_XDS_SERVER_TLS_CACERT', settings.serverTlsCaCert);
  const key = read('CONFIG_GRPC_XDS_CLIENT_TLS_KEY', settings.clientTlsKey);
  const cert = read('CONFIG_GRPC_XDS_CLIENT_TLS_CERT', settings.clientTlsCert);
  if ((key === null) !== (cert === null)) {
    throw new SettingsError(
      'CONFIG_GRPC_XDS_CLIENT_TLS_CERT',
      'a client certificate needs both the _CERT and the _KEY file',
    );
  }
  return {
    credentials: credentials.createSsl(ca, key, cert),
    options: settings.serverTlsSan === '' ? {} : { 'grpc.ssl_target_name_override': settings.serverTlsSan },
  };
}
