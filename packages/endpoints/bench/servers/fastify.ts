import Fastify from 'fastify';
import { announce, HELLO } from './ready.js';

const app = Fastify({ logger: false });
app.get('/', async () => HELLO);
app.get<{ Params: { userId: string; postId: string } }>('/users/:userId/posts/:postId', async (request) => ({
  userId: request.params.userId,
  postId: request.params.postId,
}));
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address());
