import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  onRequestHookHandler,
  preValidationAsyncHookHandler,
} from 'fastify';
import { checkCsrfFormField } from '../auth/csrf.js';
import { guardFor } from '../auth/guards.js';
import type { OperationId } from '../http/operations.js';
import { takeFlash } from '../pages/flash.js';
import { backOf } from '../pages/forms.js';
import type { Flash } from '../pages/layout.js';
import { canonicaliseUuids } from '../plugins/app/identifiers.js';
import { checksHook } from '../plugins/app/sync-hooks.js';
import { securityOf } from './contract-rules.js';

export interface PageRoute<Query, Params> {
  method: 'GET' | 'POST';
  url: string;
  /** The contract operation whose security requirement the page shares (who may use it). */
  access: OperationId;
  /** The query's schema: a contract operation's query parameters (parametersOf), so their rules too. */
  query?: object;
  /** The path's schema: the `:names` of the page are the path parameters of a contract operation. */
  params?: object;
  /** Runs before validation (a GET form sends an empty search box as `q=`). */
  beforeValidation?: preValidationAsyncHookHandler;
  handler: (
    request: FastifyRequest<{ Querystring: Query; Params: Params }>,
    reply: FastifyReply,
    flash: Flash | undefined,
  ) => Promise<unknown>;
}

/**
 * Registers pages with the rules of the API operation they perform: the same guard (sign-in and
 * roles, from the contract), the same per-user rate limit and the same parameter rules. A GET page
 * is guarded before anything else, like the API; a form post checks its CSRF field first (as the API
 * checks the header before authentication), and a browser sent to sign in comes back to the form's page.
 */
export function pageRoutes(app: FastifyInstance, rateLimit: onRequestHookHandler | undefined) {
  return function page<Query = unknown, Params = unknown>(route: PageRoute<Query, Params>): void {
    const limited = rateLimit === undefined ? [] : [rateLimit];
    const schema = {
      ...(route.query === undefined ? {} : { querystring: route.query }),
      ...(route.params === undefined ? {} : { params: route.params }),
    };
    const before = route.beforeValidation === undefined ? [] : [route.beforeValidation];
    if (route.method === 'GET') {
      // A page shows the message the last form post left for it, once.
      const handler = async (request: FastifyRequest, reply: FastifyReply) =>
        route.handler(request as never, reply, await takeFlash(request, reply));
      const guard = guardFor(securityOf(route.access));
      app.route({
        method: 'GET',
        url: route.url,
        schema,
        onRequest: [...limited, ...(guard === undefined ? [] : [guard])],
        preValidation: [checksHook(canonicaliseUuids), ...before],
        handler,
      });
      return;
    }
    const guard = guardFor(securityOf(route.access), backOf);
    app.route({
      method: 'POST',
      url: route.url,
      schema,
      config: { csrfFormField: true },
      preValidation: [
        checkCsrfFormField,
        ...(limited as never[]),
        ...(guard === undefined ? [] : [guard as never]),
        checksHook(canonicaliseUuids) as never,
        ...before,
      ],
      handler: (request, reply) => route.handler(request as never, reply, undefined),
    });
  };
}
