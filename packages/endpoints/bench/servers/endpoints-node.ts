import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createApp } from '@platform/endpoints';
import { announce } from './ready.js';

/** Ours through the Node interface: `http.createServer(app.listener)`. */
const app = await createApp({ controllerPrefix: fileURLToPath(new URL('../controllers', import.meta.url)) });
const server = createServer(app.listener);
server.listen(0, '127.0.0.1', () => announce(server.address()));
