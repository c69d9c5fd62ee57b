import type { ConnectionOptions } from 'node:tls';
import { type Endpoint, MemcacheConnection } from './connection.js';
import type { ReplyParser } from './protocol.js';

/**
 * Connections to one memcached server: an operation takes an idle connection or dials a new one,
 * and gives it back afterwards; at most MEMCACHE_MAX_IDLE_CONNS idle ones are kept (gomemcache's
 * MaxIdleConns), the rest are closed.
 */
export class ServerPool {
  private readonly idle: MemcacheConnection[] = [];
  private closed = false;

  constructor(
    readonly endpoint: Endpoint,
    private readonly tls: ConnectionOptions | undefined,
    private readonly maxIdle: number,
    private readonly timeoutMs: number,
  ) {}

  async run<T>(command: string, parse: ReplyParser<T>): Promise<T> {
    let connection = this.idle.pop();
    // An idle connection the server closed meanwhile is dropped, not used.
    while (connection && !connection.healthy) connection = this.idle.pop();
    connection ??= await MemcacheConnection.open(this.endpoint, this.tls, this.timeoutMs);
    try {
      return await connection.send(command, parse);
    } finally {
      this.giveBack(connection);
    }
  }

  close(): void {
    this.closed = true;
    for (const connection of this.idle.splice(0)) connection.close();
  }

  private giveBack(connection: MemcacheConnection): void {
    if (!this.closed && connection.healthy && this.idle.length < this.maxIdle) this.idle.push(connection);
    else connection.close();
  }
}
