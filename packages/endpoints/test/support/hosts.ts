/**
 * Serves one app on three hosts in a process of its own: node:http with `app.listener`, srvx and
 * @hono/node-server with `app.fetch`. A client racing a server must not share its event loop, or
 * the two take turns and the race never happens. Usage: `tsx hosts.ts <prefix> [options JSON ...]`;
 * serves the app once per options argument, and prints a line for each, in order:
 * `hosts <node port> <srvx port> <hono port>`.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as honoServe } from '@hono/node-server';
import { serve as srvxServe } from 'srvx';
import { createApp } from '../../src/index.js';

const [prefix, ...optionSets] = process.argv.slice(2);

/** The app with `options` on the three hosts; resolves to their line of ports. */
async function serveHosts(options: string): Promise<string> {
  const app = await createApp({ log: () => {}, ...JSON.parse(options), controllerPrefix: prefix });

  const node = createServer(app.listener);
  node.listen(0, '127.0.0.1');
  await once(node, 'listening');

  // srvx's graceful shutdown would take SIGTERM for itself and close only its own server, leaving this
  // process (and the test file waiting on its output) running after the test stops it.
  const srvx = srvxServe({
    fetch: app.fetch,
    port: 0,
    hostname: '127.0.0.1',
    silent: true,
    gracefulShutdown: false,
  });
  await srvx.ready();

  const hono = honoServe({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }) as Server;
  if (!hono.listening) await once(hono, 'listening');

  // Answers to requests Node's parser refuses (431 for an endless header), which linger as the app's do.
  for (const server of [node, srvx.node?.server as Server, hono]) server.on('clientError', app.clientError);

  const port = (server: Server) => (server.address() as AddressInfo).port;
  return `hosts ${port(node)} ${new URL(srvx.url as string).port} ${port(hono)}\n`;
}

for (const options of optionSets.length > 0 ? optionSets : ['{}'])
  process.stdout.write(await serveHosts(options));
