import { Server, type ServerCredentials } from '@grpc/grpc-js';
import type { Logger } from '../log.js';
import { boundGrpcHandshakes } from './grpc-handshake.js';
import type { GrpcTransport } from './grpc-transport.js';

export interface GrpcJsOptions {
  /** GRPC_MAX_CONNECTION_AGE in ms; grpc-js adds the ±10% jitter. */
  readonly maxConnectionAgeMs: number;
  readonly maxConnectionAgeGraceMs: number;
  readonly maxReceiveMessageBytes: number;
  readonly handshakeTimeoutMs: number;
}

/** GRPC_TRANSPORT=grpc-js: the service on a grpc-js Server. */
export function grpcJsTransport(
  options: GrpcJsOptions,
  credentials: ServerCredentials,
  log: Logger,
): GrpcTransport {
  const server = new Server({
    'grpc.max_connection_age_ms': options.maxConnectionAgeMs,
    'grpc.max_connection_age_grace_ms': options.maxConnectionAgeGraceMs,
    'grpc.max_receive_message_length': options.maxReceiveMessageBytes,
  });
  return {
    addService: (definition, implementation) => server.addService(definition, implementation),
    bind: (address) =>
      new Promise((resolve, reject) => {
        server.bindAsync(address, credentials, (error, port) => {
          if (error) return reject(error);
          if (!boundGrpcHandshakes(server, options.handshakeTimeoutMs)) {
            log.warn('GRPC_HANDSHAKE_TIMEOUT is not applied: this grpc-js version hides its HTTP/2 servers');
          }
          resolve(port);
        });
      }),
    tryShutdown: (done) => server.tryShutdown(() => done()),
    forceShutdown: () => server.forceShutdown(),
  };
}
