import { connect as connectTcp, type Socket } from 'node:net';
import { type ConnectionOptions, connect as connectTls } from 'node:tls';
import type { ReplyParser } from './protocol.js';

export interface Endpoint {
  readonly host: string;
  readonly port: number;
  /** host:port */
  readonly address: string;
}

/**
 * One connection to one memcached server, used by one operation at a time (as gomemcache does).
 * Every operation has a deadline; a timeout or a broken reply destroys the connection, so a
 * late reply can never be read as the answer to the next command.
 */
export class MemcacheConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private pending:
    | { parse: ReplyParser<unknown>; resolve(value: unknown): void; reject(error: Error): void }
    | undefined;
  private broken: Error | undefined;

  private constructor(
    private readonly socket: Socket,
    private readonly timeoutMs: number,
  ) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('memcache: connection closed by the server')));
    socket.on('timeout', () => this.fail(new Error(`memcache: i/o timeout after ${timeoutMs} ms`)));
  }

  static open(
    endpoint: Endpoint,
    tls: ConnectionOptions | undefined,
    timeoutMs: number,
  ): Promise<MemcacheConnection> {
    return new Promise((resolve, reject) => {
      const socket = tls
        ? connectTls({
            ...tls,
            host: endpoint.host,
            port: endpoint.port,
            servername: serverName(endpoint.host),
          })
        : connectTcp({ host: endpoint.host, port: endpoint.port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error(`memcache: dial ${endpoint.address}: i/o timeout after ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once(tls ? 'secureConnect' : 'connect', () => {
        clearTimeout(timer);
        socket.removeAllListeners('error');
        resolve(new MemcacheConnection(socket, timeoutMs));
      });
      socket.once('error', (error) => {
        clearTimeout(timer);
        socket.destroy();
        reject(new Error(`memcache: dial ${endpoint.address}: ${error.message}`));
      });
    });
  }

  /** False once the connection failed; it must then be dropped, never reused. */
  get healthy(): boolean {
    return this.broken === undefined && !this.socket.destroyed;
  }

  send<T>(command: string, parse: ReplyParser<T>): Promise<T> {
    if (this.broken) return Promise.reject(this.broken);
    if (this.pending) return Promise.reject(new Error('memcache: connection is busy'));
    return new Promise<T>((resolve, reject) => {
      this.pending = { parse, resolve: resolve as (value: unknown) => void, reject };
      this.socket.setTimeout(this.timeoutMs);
      this.socket.write(command);
    });
  }

  close(): void {
    this.broken ??= new Error('memcache: connection closed');
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const pending = this.pending;
    if (!pending) {
      this.fail(new Error('memcache: unexpected data from the server'));
      return;
    }
    let parsed: ReturnType<ReplyParser<unknown>>;
    try {
      parsed = pending.parse(this.buffer);
    } catch (error) {
      // An error reply is a complete answer: the connection stays usable only if nothing follows.
      this.pending = undefined;
      this.socket.setTimeout(0);
      this.buffer = Buffer.alloc(0);
      pending.reject(error as Error);
      return;
    }
    if (!parsed.done) return;
    this.pending = undefined;
    this.socket.setTimeout(0);
    this.buffer =
      parsed.consumed === this.buffer.length ? Buffer.alloc(0) : this.buffer.subarray(parsed.consumed);
    pending.resolve(parsed.value);
  }

  private fail(error: Error): void {
    this.broken ??= error;
    this.socket.destroy();
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
  }
}

/** SNI needs a host name; an IP literal is sent without it. */
function serverName(host: string): string | undefined {
  return /^[\d.]+$|:/.test(host) ? undefined : host;
}
