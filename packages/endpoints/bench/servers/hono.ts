import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { announce, HELLO } from './ready.js';

const app = new Hono();
app.get('/', (c) => c.json(HELLO));
app.get('/users/:userId/posts/:postId', (c) =>
  c.json({ userId: c.req.param('userId'), postId: c.req.param('postId') }),
);
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info));
