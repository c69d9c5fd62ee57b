import type { FastifyReply, FastifyRequest } from 'fastify';
import type { operations } from '../generated/api.js';

/** Operation ids of the contract (src/generated/api.ts is generated from openapi/openapi.yaml). */
export type OperationId = keyof operations;

type Parameters<K extends OperationId> = operations[K]['parameters'];
type PathOf<K extends OperationId> = Parameters<K> extends { path: infer P } ? P : Record<string, never>;
type QueryOf<K extends OperationId> = NonNullable<Parameters<K>['query']>;
type BodyOf<K extends OperationId> = operations[K] extends {
  requestBody: { content: { 'application/json': infer B } };
}
  ? B
  : undefined;
type ContentOf<R> = R extends { content: infer C } ? C[keyof C] : never;
type Responses<K extends OperationId> = operations[K]['responses'];

/** The body of the operation's success response (2xx), as the contract declares it. */
export type SuccessBody<K extends OperationId> = ContentOf<
  Responses<K>[Extract<keyof Responses<K>, 200 | 201>]
>;

export type OperationRequest<K extends OperationId> = FastifyRequest<{
  Params: PathOf<K>;
  Querystring: QueryOf<K>;
  Body: BodyOf<K>;
}>;

declare const representation: unique symbol;
/**
 * The JSON text of a `T`, made once (conditional-requests.ts: its entity tag is the digest of these
 * very bytes). A handler may return it instead of the value: fastify sends a string with a JSON
 * content type as it is, without serialising again.
 */
export type Json<T> = string & { readonly [representation]: T };

/** A handler typed by its operation: its parameters, body and success response come from the contract. */
export type OperationHandler<K extends OperationId> = (
  request: OperationRequest<K>,
  reply: FastifyReply,
) => Promise<SuccessBody<K> | Json<SuccessBody<K>> | undefined>;

/** One handler per operation; the compiler reports a missing or mistyped one. */
export type OperationHandlers = { [K in OperationId]: OperationHandler<K> };

export const HAL_CONTENT_TYPE = 'application/hal+json';
