import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createApp } from '@platform/endpoints';
import { announce } from './ready.js';

/**
 * Ours through the fetch interface on hono's own adapter, @hono/node-server: the same host as the
 * hono contender, so the two differ only in the framework (srvx's adapter is not in the comparison).
 */
const app = await createApp({ controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)) });
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info));
