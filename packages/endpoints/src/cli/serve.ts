import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../app.js';
import type { CliOptions } from './args.js';

/** Builds the app and listens; prints the bound address (the real port when 0 was asked for). */
export async function serve(options: CliOptions): Promise<Server> {
  const app = await createApp({
    ...(options.prefixes.length > 0 ? { controllerPrefix: options.prefixes } : {}),
    debug: options.debug,
    ...(options.openapi !== undefined ? { openapi: { path: options.openapi } } : {}),
  });
  const server = createServer(app.listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  process.stdout.write(
    `endpoints listening on http://${host}:${port} (prefixes: ${app.settings.prefixes.join(', ')})\n`,
  );
  return server;
}
