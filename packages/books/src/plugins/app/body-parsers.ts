import type { FastifyInstance } from 'fastify';

class UnsupportedBodyType extends Error {
  readonly statusCode = 415;
  readonly code = 'UNSUPPORTED_MEDIA_TYPE';
}

/**
 * Request bodies are `application/json` only: plain-text bodies (which a cross-site form can send without
 * a CORS preflight) are refused with 415. The response media types of the contract get a parser that
 * refuses them too, so fastify-openapi-glue finds one and no body escapes the contract's validation.
 */
export function acceptJsonBodiesOnly(app: FastifyInstance): void {
  app.removeContentTypeParser('text/plain');
  app.addContentTypeParser(
    ['application/hal+json', 'application/problem+json'],
    (request, _payload, done) => {
      done(
        new UnsupportedBodyType(
          `Send request bodies as application/json, not ${request.headers['content-type']}.`,
        ),
        undefined,
      );
    },
  );
}
