import { BlockList, isIP } from 'node:net';

/** Addresses that are never a client's public address: private, loopback, link-local, CGNAT. */
const internal = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
] as const) {
  internal.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::1', 128],
  ['fc00::', 7],
  ['fe80::', 10],
] as const) {
  internal.addSubnet(network, prefix, 'ipv6');
}

/** Headers proxies use to pass the client address on, in the order the reference checks them. */
const FORWARDING_HEADERS = ['x-forwarded-for', 'client-ip', 'x-real-ip', 'x-forwarded', 'forwarded-for'];

/**
 * Every address the forwarding headers name, in the order the reference lists them, then the peer:
 * public and private alike (the reference's `request.ip_addresses`).
 */
export function allAddresses(header: (name: string) => string | undefined, peer: string | undefined) {
  const addresses: string[] = [];
  for (const name of FORWARDING_HEADERS) {
    for (const entry of header(name)?.split(',') ?? []) {
      const address = entry.trim();
      if (address !== '') addresses.push(address);
    }
  }
  if (peer) addresses.push(peer.startsWith('::ffff:') ? peer.slice(7) : peer);
  return addresses;
}

/**
 * The client's address, aware of proxies like the reference's `request.ip_address`: the first public
 * address named by a forwarding header, else the socket's peer address. Junk entries are skipped.
 * Like the reference, forwarding headers are trusted; put the app behind a proxy that sets them.
 */
export function clientAddress(header: (name: string) => string | undefined, peer: string | undefined) {
  for (const name of FORWARDING_HEADERS) {
    const value = header(name);
    if (!value) continue;
    for (const entry of value.split(',')) {
      const address = entry.trim();
      const family = isIP(address);
      if (family !== 0 && !internal.check(address, family === 4 ? 'ipv4' : 'ipv6')) return address;
    }
  }
  return peer?.startsWith('::ffff:') ? peer.slice(7) : peer;
}
