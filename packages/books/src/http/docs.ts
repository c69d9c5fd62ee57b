import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { loadContract } from './contract.js';

export const SWAGGER_UI_PREFIX = '/swagger-ui';

/**
 * Publishes the contract as springdoc does: `/v3/api-docs` (JSON), `/v3/api-docs.yaml` and Swagger UI
 * at `/swagger-ui.html`, served from the npm packages (no CDN). The docs are public; trying the API
 * needs a session, and the UI echoes the XSRF-TOKEN cookie so unsafe methods work.
 */
export async function apiDocs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: loadContract() as never },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: SWAGGER_UI_PREFIX,
    uiConfig: {
      deepLinking: true,
      url: '/v3/api-docs',
      withCredentials: true,
      // Swagger UI passes a plain request object, not a fetch Request as the plugin's types say.
      requestInterceptor: copyXsrfCookieToHeader as never,
    },
  });
  app.get('/v3/api-docs', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json').send(app.swagger()),
  );
  app.get('/v3/api-docs.yaml', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/yaml').send(app.swagger({ yaml: true })),
  );
  app.get('/swagger-ui.html', { schema: { hide: true } }, async (_request, reply) =>
    reply.redirect(`${SWAGGER_UI_PREFIX}/`, 302),
  );
}

declare const document: { cookie: string };

/** Runs in the browser (serialised into the page): echoes the CSRF cookie in the header the service checks. */
function copyXsrfCookieToHeader(request: { headers: Record<string, string> }) {
  const match = document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/);
  if (match?.[1]) request.headers['X-XSRF-TOKEN'] = decodeURIComponent(match[1]);
  return request;
}
