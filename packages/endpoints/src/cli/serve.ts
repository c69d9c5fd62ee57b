import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../app.js';
import { EndpointsError } from '../errors.js';
import type { ResponseValidation } from '../settings.js';
import type { CliOptions } from './args.js';

/** Builds the app and listens; prints the bound address (the real port when 0 was asked for). */
export async function serve(options: CliOptions): Promise<Server> {
  const app = await createApp({
    ...(options.prefixes.length > 0 ? { controllerPrefix: options.prefixes } : {}),
    debug: options.debug,
    ...(options.openapi !== undefined ? { openapi: { path: options.openapi } } : {}),
    ...(options.project !== undefined ? { project: options.project } : {}),
    // Unchecked here: createApp refuses a mode other than off, log or strict with the setting's name.
    ...(options.responseValidation !== undefined
      ? { responseValidation: options.responseValidation as ResponseValidation }
      : {}),
    ...(options.messageValidation !== undefined ? { messageValidation: options.messageValidation } : {}),
  });
  const server = createServer(app.listener);
  server.on('upgrade', app.upgrade);
  server.on('clientError', app.clientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => reject(listenError(error, options)));
    server.listen(options.port, options.host, () => resolve());
  });
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  process.stdout.write(
    `endpoints listening on http://${host}:${port} (prefixes: ${app.settings.prefixes.join(', ')})\n`,
  );
  return server;
}

const LISTEN_PROBLEMS: Record<string, string> = {
  EADDRINUSE: 'address already in use; pass --host with a free port (port 0 picks one)',
  EACCES: 'permission denied (ports below 1024 need privileges); pass --host with a port of 1024 or higher',
  EADDRNOTAVAIL: 'address not available on this machine; pass --host with a local address such as 127.0.0.1',
  ENOTFOUND: 'no such host; pass --host with a local address such as 127.0.0.1',
  EAI_AGAIN: 'host name lookup failed; pass --host with a local address such as 127.0.0.1',
};

/** A listen failure as one line naming the address, the problem and the flag to change. */
function listenError(error: NodeJS.ErrnoException, options: CliOptions): Error {
  const problem = LISTEN_PROBLEMS[error.code ?? ''];
  if (problem === undefined) return error;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return new EndpointsError('LISTEN_FAILED', `cannot listen on ${host}:${options.port}: ${problem}`, {
    cause: error,
  });
}
