import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import { announce, HELLO, searchAnswer, userAnswer } from './ready.js';

const app = new Hono();
app.get('/', (c) => c.json(HELLO));
app.get('/users/:userId/posts/:postId', (c) =>
  c.json({ userId: c.req.param('userId'), postId: c.req.param('postId') }),
);
app.get('/search', (c) => {
  const found = searchAnswer(c.req.query('q'), c.req.query('page'), c.req.query('size'));
  return found ? c.json(found) : c.json('bad query', 400);
});
app.post('/users', async (c) => {
  let found: ReturnType<typeof userAnswer>;
  try {
    found = userAnswer(await c.req.json());
  } catch {
    found = undefined;
  }
  return found ? c.json(found) : c.json('bad body', 400);
});
serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => announce(info));
