import { createConnection } from 'node:net';
import { connect as connectTls } from 'node:tls';
import { AbstractConnector, type RedisOptions } from 'ioredis';

type NetStream = Awaited<ReturnType<AbstractConnector['connect']>>;

/**
 * ioredis listens for a connecting socket's errors with `once`: a TLS handshake that fails
 * twice (e.g. a hostname mismatch, then the server's alert) raises the second error with no
 * listener, which would crash the process (redis/ioredis#961). These connectors keep a listener
 * on every socket for its whole life; ioredis still sees the first error and reconnects.
 */
function keepErrorListener(stream: NetStream): NetStream {
  stream.on('error', () => {
    // The first error already reached ioredis (and our 'error' handler); later ones only repeat it.
  });
  return stream;
}

/** A cluster node over TCP or TLS (ioredis' own connector, with the listener kept). */
export class GuardedConnector extends AbstractConnector {
  private readonly options: RedisOptions;

  // ioredis passes the client's options untyped (ConnectorConstructor takes `unknown`).
  constructor(options: unknown) {
    const redisOptions = options as RedisOptions;
    super(redisOptions.disconnectTimeout ?? 2000);
    this.options = redisOptions;
  }

  connect(): Promise<NetStream> {
    const { options } = this;
    this.connecting = true;
    return new Promise((resolve, reject) => {
      // Same timing as ioredis' own connector: the socket is created on the next tick.
      process.nextTick(() => {
        if (!this.connecting) {
          reject(new Error('Connection is closed.'));
          return;
        }
        try {
          const target = options.path
            ? { path: options.path }
            : { host: options.host ?? '127.0.0.1', port: options.port ?? 6379 };
          this.stream = options.tls ? connectTls({ ...target, ...options.tls }) : createConnection(target);
        } catch (error) {
          reject(error);
          return;
        }
        this.stream.once('error', (error: Error) => {
          this.firstError = error;
        });
        resolve(keepErrorListener(this.stream));
      });
    });
  }
}
