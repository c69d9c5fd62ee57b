import type { FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';

/** What most of the contract's operations produce: HAL (which is JSON, so `application/json` is served it too). */
const PRODUCED = ['application/hal+json', 'application/json'];

function matches(range: string, mediaType: string): boolean {
  if (range === '*/*') return true;
  const [type, subtype] = range.split('/');
  const [producedType] = mediaType.split('/');
  if (subtype === '*') return type === producedType;
  return range === mediaType;
}

/** True when the Accept header allows one of `produced` with a non-zero quality (no header: anything). */
export function acceptsOneOf(accept: string | undefined, produced: readonly string[]): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((entry) => {
    const [range = '', ...params] = entry.trim().toLowerCase().split(';');
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
    return produced.some((mediaType) => matches(range.trim(), mediaType));
  });
}

/**
 * preValidation of every contract operation: an Accept header that rules out HAL and JSON is
 * answered 406 (problem details, which is what such a client gets for any error), not ignored.
 * Runs after the session guard, as Spring negotiates after its security filters.
 */
export function requireAcceptableResponse(request: FastifyRequest): void {
  requireAcceptable(request, PRODUCED);
}

/** The same check for an operation that produces something else (the calendar feed: `text/calendar`). */
export function requireAcceptableResponseOf(produced: readonly string[]): (request: FastifyRequest) => void {
  return (request) => requireAcceptable(request, produced);
}

function requireAcceptable(request: FastifyRequest, produced: readonly string[]): void {
  if (acceptsOneOf(request.headers.accept, produced)) return;
  throw new AppError(
    'not_acceptable',
    'NOT_ACCEPTABLE',
    `This operation produces ${produced.join(' or ')}; the Accept header '${request.headers.accept}' allows neither.`,
  );
}
