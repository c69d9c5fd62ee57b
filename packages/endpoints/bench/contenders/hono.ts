import type { RequestListener } from 'node:http';
import { getRequestListener } from '@hono/node-server';
import { Hono } from 'hono';
import { HELLO, searchAnswer, userAnswer } from './answers.js';

/** hono on its Node adapter, @hono/node-server. */
export async function listener(): Promise<RequestListener> {
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
  return getRequestListener(app.fetch) as RequestListener;
}
