import type { RequestListener } from 'node:http';

/**
 * The contenders, by the file under `bench/contenders/` that builds each one's `(req, res)`
 * listener. The socket benchmark serves that listener with `http.createServer`; the socketless
 * one calls it directly.
 */
export const CONTENDER_FILES = [
  'node-http',
  'endpoints-node',
  'fastify',
  'endpoints-srvx',
  'hono',
  'endpoints-hono-node',
] as const;

export type ContenderFile = (typeof CONTENDER_FILES)[number];

export function isContenderFile(name: string | undefined): name is ContenderFile {
  return (CONTENDER_FILES as readonly (string | undefined)[]).includes(name);
}

export async function loadListener(file: ContenderFile): Promise<RequestListener> {
  const module = (await import(`./${file}.js`)) as { listener(): Promise<RequestListener> };
  return module.listener();
}
