import { ServerCredentials } from '@grpc/grpc-js';
import {
  ReloadingServerCredentials,
  type ReloadObserver,
  type ServerTlsFiles,
} from './reloading-credentials.js';

export interface TlsLogger {
  info(message: string, fields?: Record<string, unknown>): void;
  error(message: string, fields?: Record<string, unknown>): void;
}

/** GRPC_SERVER_USE_TLS and friends: hot-reloading TLS (mTLS with a client CA), or plaintext without files. */
export function grpcServerCredentials(tls: ServerTlsFiles | undefined, log: TlsLogger): ServerCredentials {
  if (!tls) return ServerCredentials.createInsecure();
  return new ReloadingServerCredentials(tls, { observer: tlsReloadLog(tls.certFile, log) });
}

/** Logs each reload of the gRPC server's certificate, and each failed one. */
export function tlsReloadLog(certFile: string, log: TlsLogger): ReloadObserver {
  return {
    reloaded: () => log.info('gRPC server certificate reloaded', { cert: certFile }),
    failed: (error) =>
      log.error('gRPC server certificate reload failed; the previous certificate stays in use', {
        cert: certFile,
        error: error.message,
      }),
  };
}
