import { ServerCredentials } from '@grpc/grpc-js';
import type { Settings } from '../../settings.js';
import { ReloadingServerCredentials } from './reloading-credentials.js';

export interface TlsLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** GRPC_SERVER_USE_TLS and friends: hot-reloading TLS (mTLS with a client CA), or plaintext. */
export function grpcServerCredentials(tls: Settings['grpcTls'], log: TlsLogger): ServerCredentials {
  if (!tls.enabled) return ServerCredentials.createInsecure();
  return new ReloadingServerCredentials(
    {
      certFile: tls.certFile,
      keyFile: tls.keyFile,
      clientCaFile: tls.clientCaFile || undefined,
      clientSan: tls.clientSan || undefined,
    },
    {
      observer: {
        reloaded: () => log.info('gRPC server certificate reloaded', { cert: tls.certFile }),
        failed: (error) =>
          log.error('gRPC server certificate reload failed; the previous certificate stays in use', {
            cert: tls.certFile,
            error: error.message,
          }),
      },
    },
  );
}
