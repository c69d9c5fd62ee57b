import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Schemas } from '../../contract/schemas.js';
import { AppError, type FailureKind } from '../../errors.js';
import type { AllowedMethods } from './allowed-methods.js';
import { frameworkProblem } from './framework-errors.js';

/** The contract's problem details and per-field validation error (src/generated from openapi.yaml). */
export type Problem = Schemas['Problem'];
export type FieldError = Schemas['FieldError'];

const STATUS_BY_KIND: Record<FailureKind, number> = {
  invalid: 400,
  unauthenticated: 401,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  not_acceptable: 406,
  conflict: 409,
  unprocessable: 422,
  rate_limited: 429,
  precondition_failed: 412,
  uri_too_long: 414,
  unsupported_media_type: 415,
};

const TITLES: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  406: 'Not Acceptable',
  408: 'Request Timeout',
  409: 'Conflict',
  412: 'Precondition Failed',
  413: 'Content Too Large',
  414: 'URI Too Long',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
};

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/**
 * The request path as a valid URI reference, as `instance` must be: a malformed path (a lone `%`, or
 * characters a URI cannot hold) is percent-encoded rather than echoed.
 */
function uriReference(path: string): string {
  return path
    .replace(/%(?![0-9A-Fa-f]{2})/g, '%25')
    .replace(/[^A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]/g, (char) => encodeURIComponent(char));
}

export function sendProblem(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  code: string,
  detail: string,
  errors?: FieldError[],
): FastifyReply {
  const problem: Problem = {
    type: 'about:blank',
    title: TITLES[status] ?? (status >= 500 ? 'Server Error' : 'Client Error'),
    status,
    detail,
    instance: uriReference(request.url.split('?')[0] ?? request.url),
    code,
    requestId: request.id,
    ...(errors === undefined ? {} : { errors }),
  };
  return reply.code(status).type(PROBLEM_CONTENT_TYPE).send(problem);
}

const LOCATIONS: Record<string, FieldError['location']> = {
  body: 'body',
  querystring: 'query',
  params: 'path',
  headers: 'header',
};

export interface AjvIssue {
  instancePath: string;
  keyword: string;
  message?: string;
  params: Record<string, unknown>;
}

export function fieldErrors(context: string | undefined, issues: AjvIssue[]): FieldError[] {
  const location = LOCATIONS[context ?? 'body'] ?? 'body';
  return issues.map((issue) => {
    const path = issue.instancePath.replace(/^\//, '').replaceAll('/', '.');
    const missing = issue.params.missingProperty;
    const unknown = issue.params.additionalProperty;
    if (typeof missing === 'string') {
      return { location, field: path ? `${path}.${missing}` : missing, message: 'is required' };
    }
    if (typeof unknown === 'string') {
      return { location, field: path ? `${path}.${unknown}` : unknown, message: 'is not a known field' };
    }
    return { location, field: path, message: issue.message ?? `fails ${issue.keyword}` };
  });
}

/** What an error means to the caller: status, stable code, message, and the invalid fields if any. */
export interface Failure {
  status: number;
  code: string;
  detail: string;
  errors?: FieldError[];
}

/**
 * The one mapping of errors to statuses and codes, rendered as problem details for API callers and as
 * a page for browsers (src/web). A 5xx carries no internals: the log has them under the request id.
 */
export function describeFailure(error: FastifyError, request: FastifyRequest): Failure {
  if (error instanceof AppError) {
    return { status: STATUS_BY_KIND[error.kind], code: error.code, detail: error.message };
  }
  if (error.validation) {
    const errors = fieldErrors(error.validationContext, error.validation as AjvIssue[]);
    const noun = errors.length === 1 ? 'field' : 'fields';
    return {
      status: 400,
      code: 'VALIDATION_FAILED',
      detail: `The request has ${errors.length} invalid ${noun}.`,
      errors,
    };
  }
  const status = error.statusCode ?? 500;
  if (status >= 400 && status < 500) return frameworkProblem(error, status);
  request.log.error({ err: error }, 'request failed');
  return {
    status: 500,
    code: 'INTERNAL_ERROR',
    detail: `An unexpected error occurred; the service log has the details under request id ${request.id}.`,
  };
}

/** Every error leaves as RFC 9457 problem details. */
export function problemErrorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const { status, code, detail, errors } = describeFailure(error, request);
  return sendProblem(request, reply, status, code, detail, errors);
}

/**
 * Unknown routes: 405 with `Allow` when the path exists with other methods (an OPTIONS request gets
 * 204 with `Allow`, as Spring MVC answers it), otherwise 404.
 */
export function problemNotFoundHandler(allowed: AllowedMethods) {
  return function notFound(request: FastifyRequest, reply: FastifyReply) {
    const path = request.url.split('?')[0] ?? request.url;
    const methods = allowed.for(path);
    if (methods.length > 0) {
      reply.header('allow', methods.join(', '));
      if (request.method === 'OPTIONS') return reply.code(204).send();
      return sendProblem(
        request,
        reply,
        405,
        'METHOD_NOT_ALLOWED',
        `${path} does not support ${request.method}; it supports ${methods.join(', ')}.`,
      );
    }
    return sendProblem(
      request,
      reply,
      404,
      'ROUTE_NOT_FOUND',
      `No route ${request.method} ${path}; see /swagger-ui.html for the API.`,
    );
  };
}
