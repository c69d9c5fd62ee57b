import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';

/**
 * What the service needs of a gRPC server, whichever transport carries it (GRPC_TRANSPORT):
 * grpc-js (grpc-js-transport.ts) or node:http2 (h2/server.ts). Services are added with grpc-js'
 * definitions and handlers, so the same handlers serve both.
 */
export interface GrpcTransport {
  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void;
  /** Listens on `host:port` or `unix:<path>`; resolves to the bound port (0 for a unix socket). */
  bind(address: string): Promise<number>;
  /** Stops accepting calls and lets the calls in flight finish; `done` runs once all connections are gone. */
  tryShutdown(done: () => void): void;
  /** Ends every connection now. */
  forceShutdown(): void;
}

/**
 * A gRPC listener that could not bind, with the socket error it met (`cause`): the startup error
 * names the gRPC settings for it, where a bare node:net error would be taken for the HTTP or debug
 * listener's.
 */
export class GrpcBindError extends Error {
  constructor(override readonly cause: NodeJS.ErrnoException) {
    super(cause.message, { cause });
    this.name = 'GrpcBindError';
  }
}
