import type {
  FastifyInstance,
  FastifyRequest,
  onRequestHookHandler,
  onSendHookHandler,
  preHandlerHookHandler,
  RouteHandlerMethod,
  RouteOptions,
} from 'fastify';
import openapiGlue from 'fastify-openapi-glue';
import { guardFor } from '../auth/guards.js';
import {
  loadContract,
  operationsRequiringBody,
  operationsWithParameter,
  producedByOperation,
  securityByOperation,
} from '../contract/document.js';
import { shareMetaSchemaValidators } from '../contract/meta-schema-validators.js';
import { AppError } from '../errors.js';
import type { OperationHandlers, OperationId } from '../http/operations.js';
import { canonicaliseUuids } from '../plugins/app/identifiers.js';
import { requireAcceptableResponse, requireAcceptableResponseOf } from '../plugins/app/negotiation.js';
import { checksHook } from '../plugins/app/sync-hooks.js';

/**
 * fastify validates a body against the schema of its media type, so a request with no body and no
 * Content-Type skips validation altogether; a required body is checked here (else the handler got
 * `undefined`, a 500).
 */
function requireBody(request: FastifyRequest): void {
  if (request.body !== undefined && request.body !== null) return;
  throw new AppError(
    'invalid',
    'BODY_REQUIRED',
    'This operation needs a JSON request body (Content-Type: application/json).',
  );
}

/**
 * Registers one route per contract operation: fastify-openapi-glue validates parameters and bodies and
 * serialises responses from the contract's schemas; the contract's security requirements become guards
 * that run before validation, so an anonymous caller learns nothing about the input rules.
 */
export async function contractRoutes(
  app: FastifyInstance,
  handlers: OperationHandlers,
  /**
   * The per-user rate limit: runs on every secured operation just before its guard, so a signed-in
   * caller's call counts even when the guard then refuses it (403); anonymous calls pass through to the guard.
   */
  rateLimit?: onRequestHookHandler,
  /** Idempotency-Key: its hooks run on the operations whose contract declares the header. */
  idempotency?: { preHandler: preHandlerHookHandler; onSend: onSendHookHandler },
): Promise<void> {
  shareMetaSchemaValidators();
  const contract = loadContract();
  const securityOf = securityByOperation(contract);
  const needsBody = operationsRequiringBody(contract);
  const takesIdempotencyKey = operationsWithParameter(contract, 'IdempotencyKey');
  const produced = producedByOperation(contract);
  await app.register(openapiGlue, {
    specification: contract,
    operationResolver: (operationId: string) => {
      if (!(operationId in handlers))
        throw new Error(`the contract's operation ${operationId} has no handler`);
      const handler = handlers[operationId as OperationId] as unknown as RouteHandlerMethod;
      const guard = guardFor(securityOf.get(operationId) ?? []);
      // HAL operations share one check; another media type (the calendar feed) gets its own.
      const types = produced.get(operationId) ?? [];
      const acceptable =
        types.length === 0 || types.some((type) => type.endsWith('json'))
          ? requireAcceptableResponse
          : requireAcceptableResponseOf(types);
      const preValidation = needsBody.has(operationId)
        ? checksHook(acceptable, canonicaliseUuids, requireBody)
        : checksHook(acceptable, canonicaliseUuids);
      // Glue fills in method, url and schema; these options only add the handler and the hooks.
      const options: Partial<RouteOptions> = { handler, preValidation };
      if (guard !== undefined) options.onRequest = rateLimit === undefined ? guard : [rateLimit, guard];
      if (idempotency !== undefined && takesIdempotencyKey.has(operationId)) {
        options.preHandler = idempotency.preHandler;
        options.onSend = idempotency.onSend;
      }
      return options as RouteOptions;
    },
  });
}
