import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { loadContract } from '../../contract/document.js';
import { API_DOCS_PATH, swaggerUiBranding } from './docs-theme.js';

export const SWAGGER_UI_PREFIX = '/swagger-ui';

/**
 * Publishes the contract as springdoc does: `/v3/api-docs` (JSON), `/v3/api-docs.yaml`,
 * `/v3/api-docs/swagger-config`, and Swagger UI at `/swagger-ui.html` and `/swagger-ui/index.html`,
 * served from the npm packages (no CDN) and branded as this service. The docs are public; trying the
 * API needs a session, and the UI echoes the XSRF-TOKEN cookie so unsafe methods work.
 */
export async function apiDocs(app: FastifyInstance): Promise<void> {
  await app.register(fastifySwagger, {
    mode: 'static',
    specification: { document: loadContract() as never },
  });
  await app.register(fastifySwaggerUi, {
    routePrefix: SWAGGER_UI_PREFIX,
    ...swaggerUiBranding,
    uiConfig: {
      deepLinking: true,
      url: API_DOCS_PATH,
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
  app.get(`${API_DOCS_PATH}/swagger-config`, { schema: { hide: true } }, async () => ({
    configUrl: `${API_DOCS_PATH}/swagger-config`,
    url: API_DOCS_PATH,
    validatorUrl: '',
  }));
  for (const path of ['/swagger-ui.html', `${SWAGGER_UI_PREFIX}/index.html`]) {
    app.get(path, { schema: { hide: true } }, async (_request, reply) =>
      reply.redirect(`${SWAGGER_UI_PREFIX}/`, 302),
    );
  }
}

declare const document: { cookie: string };

/** Runs in the browser (serialised into the page): echoes the CSRF cookie in the header the service checks. */
function copyXsrfCookieToHeader(request: { headers: Record<string, string> }) {
  const match = document.cookie.match(/(?:^|; )XSRF-TOKEN=([^;]*)/);
  if (match?.[1]) request.headers['X-XSRF-TOKEN'] = decodeURIComponent(match[1]);
  return request;
}
