import type { FastifyInstance } from 'fastify';
import { STYLESHEET_PATH } from './layout.js';

const STYLESHEET = `body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem}
li{margin:.5rem 0}header{display:flex;justify-content:space-between;gap:1rem;border-bottom:1px solid #ccc;padding-bottom:.5rem}
button{font:inherit;padding:.4rem 1rem}`;

/** The stylesheet of the service's own pages (a file, because the CSP forbids inline styles). */
export async function pageAssets(app: FastifyInstance): Promise<void> {
  app.get(STYLESHEET_PATH, async (_request, reply) => reply.type('text/css; charset=utf-8').send(STYLESHEET));
}
