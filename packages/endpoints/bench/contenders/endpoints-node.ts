import type { RequestListener } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createApp } from '@platform/endpoints';

/** Ours through the Node interface: `http.createServer(app.listener)`. */
export async function listener(): Promise<RequestListener> {
  const app = await createApp({
    controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)),
  });
  return app.listener;
}
