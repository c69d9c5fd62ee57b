import Fastify from 'fastify';
import { announce, HELLO } from './ready.js';

const app = Fastify({ logger: false });
app.get('/', async () => HELLO);
app.get<{ Params: { userId: string; postId: string } }>('/users/:userId/posts/:postId', async (request) => ({
  userId: request.params.userId,
  postId: request.params.postId,
}));
// fastify's own way to cast and check arguments: JSON schemas, compiled by ajv (which coerces
// query strings to the declared types).
app.get<{ Querystring: { q: string; page: number; size: number } }>(
  '/search',
  {
    schema: {
      querystring: {
        type: 'object',
        properties: {
          q: { type: 'string' },
          page: { type: 'number', default: 1 },
          size: { type: 'number', default: 20 },
        },
        required: ['q'],
      },
    },
  },
  async (request) => ({ q: request.query.q, page: request.query.page, size: request.query.size }),
);
app.post<{ Body: { name: string; age: number } }>(
  '/users',
  {
    schema: {
      body: {
        type: 'object',
        properties: { name: { type: 'string' }, age: { type: 'number' } },
        required: ['name', 'age'],
      },
    },
  },
  async (request) => ({ name: request.body.name, age: request.body.age }),
);
await app.listen({ port: 0, host: '127.0.0.1' });
announce(app.server.address());
