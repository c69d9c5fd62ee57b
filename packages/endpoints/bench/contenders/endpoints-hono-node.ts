import type { RequestListener } from 'node:http';
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import { createApp } from '@platform/endpoints';

/**
 * Ours through the fetch interface on hono's own adapter, @hono/node-server: the same host as the
 * hono contender, so the two differ only in the framework (srvx's adapter is not in the comparison).
 */
export async function listener(): Promise<RequestListener> {
  const app = await createApp({
    controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)),
  });
  return getRequestListener(app.fetch) as RequestListener;
}
