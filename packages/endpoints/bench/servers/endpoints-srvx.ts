import { fileURLToPath } from 'node:url';
import { createApp } from '@platform/endpoints';
import { FastResponse, serve } from 'srvx';
import { announce } from './ready.js';

/**
 * Ours through the fetch interface, served by srvx. On Node, srvx writes its own `FastResponse`
 * directly, where a native Response must be read back through a web stream; installing it as the
 * global `Response` lets the framework's runtime-neutral `new Response(…)` take that path.
 */
globalThis.Response = FastResponse;
const app = await createApp({ controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)) });
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', silent: true });
await server.ready();
announce(new URL(server.url as string).port);
