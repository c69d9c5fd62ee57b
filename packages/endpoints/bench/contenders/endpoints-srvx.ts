import type { RequestListener } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createApp } from '@platform/endpoints';
import { FastResponse, serve } from 'srvx';

/**
 * Ours through the fetch interface, under srvx's Node handler. On Node, srvx writes its own
 * `FastResponse` directly, where a native Response must be read back through a web stream;
 * installing it as the global `Response` lets the framework's runtime-neutral `new Response(…)`
 * take that path.
 */
export async function listener(): Promise<RequestListener> {
  globalThis.Response = FastResponse;
  const app = await createApp({
    controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)),
  });
  // `manual`: srvx hands over its handler and leaves the listening, and the signals, to the caller.
  const handler = serve({ fetch: app.fetch, manual: true, silent: true, gracefulShutdown: false }).node
    ?.handler;
  if (handler === undefined) throw new Error('srvx gave no Node handler');
  return handler as RequestListener;
}
