import type { AddressInfo } from 'node:net';

/** Every contender prints its bound port on one line, which the runner waits for. */
export function announce(address: AddressInfo | string | null): void {
  const port = typeof address === 'object' && address !== null ? address.port : address;
  process.stdout.write(`listening ${port}\n`);
}

export const HELLO = { hello: 'world' };
export const JSON_TYPE = 'application/json; charset=utf-8';
