import { randomUUID } from 'node:crypto';
import type { Outcome } from '../http/outcome.js';
import { errorBody, JSON_TYPE } from '../http/render.js';
import { isJsonType } from '../media-type.js';
// Type-only: a Handler is the key the checks are found by, nothing of routing runs here.
import type { Handler } from '../route-tree/handler.js';
import { describeMismatch, type HandlerChecks } from './validators.js';

/** What a response check needs of the request: for the log line and the request id. */
export interface CheckedRequest {
  readonly method: string;
  readonly path: string;
  header(name: string): string | undefined;
}

/** Passes an outcome through, or (strict) replaces a mismatching one with a 500. */
export type ResponseCheck = (outcome: Outcome, handler: Handler, request: CheckedRequest) => Outcome;

/**
 * Checks each JSON success body against the schema of its handler and status, as the client sees it
 * (the JSON text parsed again, so a Date is checked as the string it became). `log` reports a
 * mismatch once per route and sends the response; `strict` answers 500 instead, naming the bad field,
 * and logs it with the request id (the request's `x-request-id`, else a new one, sent back in that
 * header).
 */
export function responseCheck(
  mode: 'log' | 'strict',
  checks: ReadonlyMap<Handler, HandlerChecks>,
  log: (line: string) => void,
): ResponseCheck {
  const reported = new Set<Handler>();
  return (outcome, handler, request) => {
    const check = checks.get(handler)?.responses.get(outcome.status);
    if (check === undefined || typeof outcome.body !== 'string' || !isJsonType(outcome.contentType))
      return outcome;
    const mismatch = check(JSON.parse(outcome.body));
    if (mismatch === null) return outcome;
    const what = `the ${outcome.status} response of ${request.method} ${request.path} does not match the handler's return type at ${describeMismatch(mismatch)}`;
    if (mode === 'log') {
      if (!reported.has(handler)) {
        reported.add(handler);
        log(`endpoints: ${what} (logged once per route)`);
      }
      return outcome;
    }
    const id = request.header('x-request-id') ?? randomUUID();
    log(`endpoints: request ${id}: ${what}`);
    return {
      status: 500,
      contentType: JSON_TYPE,
      headers: new Headers({ 'x-request-id': id }),
      body: errorBody(`the response does not match its schema at ${describeMismatch(mismatch)}`),
    };
  };
}
