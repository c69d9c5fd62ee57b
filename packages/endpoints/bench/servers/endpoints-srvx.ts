import { fileURLToPath } from 'node:url';
import { serve } from 'srvx';
import { createApp } from '../../src/index.js';
import { announce } from './ready.js';

/** Ours through the fetch interface, served by srvx. */
const app = await createApp({ controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)) });
const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', silent: true });
await server.ready();
announce(new URL(server.url as string).port);
