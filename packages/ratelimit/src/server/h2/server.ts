import { constants, createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import type { Server as NetServer, Socket } from 'node:net';
import type { ServiceDefinition, UntypedServiceImplementation } from '@grpc/grpc-js';
import { GrpcBindError, type GrpcTransport } from '../grpc-transport.js';
import type { ReloadObserver, ServerTlsFiles } from '../tls/reloading-credentials.js';
import { GrpcRouter } from './router.js';
import { createTlsListener } from './tls-listener.js';

export interface H2ServerOptions {
  readonly maxReceiveMessageBytes: number;
  /** GRPC_MAX_CONNECTION_AGE: a GOAWAY after this, ±10 % so that connections do not all go at once. */
  readonly maxConnectionAgeMs: number;
  /** GRPC_MAX_CONNECTION_AGE_GRACE: after the GOAWAY, how long calls in flight have before the close. */
  readonly maxConnectionAgeGraceMs: number;
  /** GRPC_HANDSHAKE_TIMEOUT: the TLS handshake and the HTTP/2 preface must be done within it. */
  readonly handshakeTimeoutMs: number;
  /** Server keepalive (grpc-go's defaults, which the reference keeps): a PING after this much quiet... */
  readonly keepaliveTimeMs?: number | undefined;
  /** ...and the connection closes when its answer takes longer than this. */
  readonly keepaliveTimeoutMs?: number | undefined;
  /** GRPC_SERVER_USE_TLS and its files; undefined: plaintext. */
  readonly tls?: ServerTlsFiles | undefined;
  readonly tlsObserver?: ReloadObserver | undefined;
  readonly tlsPollIntervalMs?: number | undefined;
}

/** grpc-go's server keepalive defaults: a PING after 2 h without one, 20 s for its answer. */
const KEEPALIVE_TIME_MS = 2 * 60 * 60 * 1000;
const KEEPALIVE_TIMEOUT_MS = 20_000;
/** Marks a socket whose HTTP/2 session has started. */
const HAS_SESSION = Symbol('has an HTTP/2 session');
/** Longest delay setTimeout takes; a longer connection age is never reached. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * GRPC_TRANSPORT=h2: the gRPC server on node:http2. Per connection it bounds the HTTP/2 preface
 * (GRPC_HANDSHAKE_TIMEOUT), sends keepalive PINGs, and at GRPC_MAX_CONNECTION_AGE (±10 %) sends a
 * GOAWAY and closes after the grace. HTTP/2 floods (rapid resets, SETTINGS, PING and CONTINUATION
 * floods) are bounded by Node's nghttp2 session limits.
 */
export class H2GrpcServer implements GrpcTransport {
  readonly #options: H2ServerOptions;
  readonly #router: GrpcRouter;
  readonly #http2: Http2Server;
  readonly #sessions = new Set<ServerHttp2Session>();
  readonly #sockets = new Set<Socket>();
  #listener: NetServer | undefined;
  #closeTls: (() => void) | undefined;

  constructor(options: H2ServerOptions) {
    this.#options = options;
    this.#router = new GrpcRouter(options.maxReceiveMessageBytes);
    this.#http2 = createServer();
    this.#http2.on('stream', this.#router.handle);
    this.#http2.on('session', (session: ServerHttp2Session) => this.#track(session));
    // Sessions and streams that fail (a client's protocol error) end on their own.
    this.#http2.on('sessionError', () => {});
  }

  addService(definition: ServiceDefinition, implementation: UntypedServiceImplementation): void {
    this.#router.addService(definition, implementation);
  }

  async bind(address: string): Promise<number> {
    const tls = this.#options.tls;
    let listener: NetServer;
    if (tls) {
      const secure = createTlsListener(
        tls,
        {
          handshakeTimeoutMs: this.#options.handshakeTimeoutMs,
          pollIntervalMs: this.#options.tlsPollIntervalMs,
          observer: this.#options.tlsObserver,
        },
        (socket) => this.#http2.emit('connection', socket),
      );
      listener = secure.server;
      this.#closeTls = secure.close;
    } else {
      listener = this.#http2;
    }
    this.#listener = listener;
    listener.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.once('close', () => this.#sockets.delete(socket));
    });
    return new Promise((resolve, reject) => {
      const failed = (error: NodeJS.ErrnoException) => reject(new GrpcBindError(error));
      listener.once('error', failed);
      const ready = () => {
        listener.off('error', failed);
        const bound = listener.address();
        resolve(typeof bound === 'object' && bound !== null ? bound.port : 0);
      };
      if (address.startsWith('unix:')) listener.listen(address.slice('unix:'.length), ready);
      else {
        const { host, port } = splitHostPort(address);
        listener.listen(port, host, ready);
      }
    });
  }

  tryShutdown(done: () => void): void {
    this.#closeTls?.();
    const listener = this.#listener;
    if (!listener) {
      done();
      return;
    }
    listener.close(() => done());
    // Connections still in their handshake have no call to finish.
    for (const socket of this.#sockets) if (!(HAS_SESSION in socket)) socket.destroy();
    // A GOAWAY; each session closes once its streams have finished.
    for (const session of this.#sessions) session.close();
  }

  forceShutdown(): void {
    this.#closeTls?.();
    this.#listener?.close();
    for (const session of this.#sessions) session.destroy();
    for (const socket of this.#sockets) socket.destroy();
  }

  #track(session: ServerHttp2Session): void {
    const options = this.#options;
    this.#sessions.add(session);
    // session.socket is a proxy of the socket: a property set on it lands on the socket itself.
    (session.socket as unknown as Record<symbol, boolean>)[HAS_SESSION] = true;
    session.on('error', () => {});
    const timers: NodeJS.Timeout[] = [];
    const later = (ms: number, run: () => void) => {
      const timer = setTimeout(run, ms).unref();
      timers.push(timer);
      return timer;
    };
    // The HTTP/2 preface (a SETTINGS frame) must come within the handshake timeout.
    const preface = later(options.handshakeTimeoutMs, () => session.destroy());
    session.once('remoteSettings', () => clearTimeout(preface));
    const age = options.maxConnectionAgeMs * (0.9 + 0.2 * Math.random());
    if (age < MAX_TIMER_MS) {
      later(age, () => {
        session.close();
        later(options.maxConnectionAgeGraceMs, () => session.destroy());
      });
    }
    const keepaliveTimeMs = options.keepaliveTimeMs ?? KEEPALIVE_TIME_MS;
    const keepaliveTimeoutMs = options.keepaliveTimeoutMs ?? KEEPALIVE_TIMEOUT_MS;
    // One PING at a time: the next goes out only after the last was answered.
    let unanswered: NodeJS.Timeout | undefined;
    const keepalive = setInterval(() => {
      if (session.closed || session.destroyed || unanswered) return;
      unanswered = setTimeout(
        () => session.destroy(undefined, constants.NGHTTP2_NO_ERROR),
        keepaliveTimeoutMs,
      );
      unanswered.unref();
      session.ping((error) => {
        if (error) return;
        clearTimeout(unanswered);
        unanswered = undefined;
      });
    }, keepaliveTimeMs).unref();
    session.once('close', () => {
      this.#sessions.delete(session);
      clearInterval(keepalive);
      clearTimeout(unanswered);
      for (const timer of timers) clearTimeout(timer);
    });
  }
}

function splitHostPort(address: string): { host: string; port: number } {
  const colon = address.lastIndexOf(':');
  const host = address.slice(0, colon);
  return {
    host: host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host,
    port: Number(address.slice(colon + 1)),
  };
}
