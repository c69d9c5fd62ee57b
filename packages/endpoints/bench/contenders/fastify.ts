import { createServer, type RequestListener } from 'node:http';
import Fastify from 'fastify';
import { HELLO } from './answers.js';

/** fastify, its handler taken from `serverFactory` (the documented way to give it a server of one's own). */
export async function listener(): Promise<RequestListener> {
  let handler: RequestListener | undefined;
  const app = Fastify({
    logger: false,
    serverFactory: (fastifyHandler) => {
      handler = fastifyHandler as RequestListener;
      return createServer(handler);
    },
  });
  app.get('/', async () => HELLO);
  app.get<{ Params: { userId: string; postId: string } }>(
    '/users/:userId/posts/:postId',
    async (request) => ({
      userId: request.params.userId,
      postId: request.params.postId,
    }),
  );
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
  await app.ready();
  if (handler === undefined) throw new Error('fastify gave no handler');
  return handler;
}
