import { promises as dns } from 'node:dns';

export interface SrvRecord {
  readonly name: string;
  readonly port: number;
  readonly priority: number;
  readonly weight: number;
}

export type SrvResolver = (name: string) => Promise<SrvRecord[]>;

export const systemSrvResolver: SrvResolver = (name) => dns.resolveSrv(name);

/**
 * The servers an SRV record lists, as `host:port`. Sorted by priority, then target and port, so
 * every instance derives the same order (and so the same key placement) from the same records.
 * Go's resolver shuffles equal priorities by weight, which would give each instance its own order.
 */
export async function serversFromSrv(name: string, resolve: SrvResolver): Promise<string[]> {
  const records = await resolve(name);
  if (records.length === 0) throw new Error(`SRV record ${name} lists no servers`);
  return [...records]
    .sort((a, b) => a.priority - b.priority || compare(a.name, b.name) || a.port - b.port)
    .map((record) => `${hostOf(record.name)}:${record.port}`);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function hostOf(target: string): string {
  const host = target.replace(/\.$/, '');
  return host.includes(':') ? `[${host}]` : host;
}
