import type { ConnectionOptions } from 'node:tls';
import { crc32 } from 'node:zlib';
import { parseHostPort } from '../redis/env-values.js';
import { ServerPool } from './server-pool.js';

/**
 * The memcached servers and which one holds a key: gomemcache's ServerList, i.e. CRC32-IEEE of
 * the key modulo the number of servers, in list order. Every ratelimit instance given the same
 * list (in the same order) puts every key on the same server, also instances of the reference.
 */
export class ServerList {
  private pools: ServerPool[] = [];

  constructor(
    private readonly tls: ConnectionOptions | undefined,
    private readonly maxIdle: number,
    private readonly timeoutMs: number,
  ) {}

  get size(): number {
    return this.pools.length;
  }

  get addresses(): string[] {
    return this.pools.map((pool) => pool.endpoint.address);
  }

  /** Replaces the list; pools of servers that stay are kept with their idle connections. */
  setServers(addresses: readonly string[], setting: string): void {
    const existing = new Map(this.pools.map((pool) => [pool.endpoint.address, pool]));
    this.pools = addresses.map((address) => {
      const kept = existing.get(address);
      if (kept) {
        existing.delete(address);
        return kept;
      }
      const { host, port } = parseHostPort(address, setting);
      return new ServerPool({ host, port, address }, this.tls, this.maxIdle, this.timeoutMs);
    });
    for (const dropped of existing.values()) dropped.close();
  }

  /** The server for a key; undefined while the list is empty. */
  pick(key: string): ServerPool | undefined {
    const pools = this.pools;
    if (pools.length <= 1) return pools[0];
    return pools[crc32(key) % pools.length];
  }

  close(): void {
    for (const pool of this.pools) pool.close();
    this.pools = [];
  }
}
