/**
 * Errors a handler raises to choose the response, after the reference's exception classes, plus the
 * startup error type. Each carries a Symbol brand, so two copies of this package (or two realms)
 * still recognise each other's errors, where `instanceof` would not.
 */

const CALL_ERROR = Symbol.for('@platform/endpoints.CallError');
const REDIRECT = Symbol.for('@platform/endpoints.Redirect');
const CALL_STOP = Symbol.for('@platform/endpoints.CallStop');

export type HeadersLike = Headers | Record<string, string> | [string, string][];

export interface CallErrorOptions {
  /** Headers added to the error response. */
  headers?: HeadersLike;
  /** A body to send instead of the message; it is rendered like a handler's return value. */
  body?: unknown;
}

/** Ends the request with `code`; the body is the message as a JSON string unless `body` is given. */
export class CallError extends Error {
  readonly code: number;
  readonly headers: Headers;
  readonly body: unknown;

  constructor(code = 500, message = '', options: CallErrorOptions = {}) {
    super(message || `CallError(${code})`);
    this.name = 'CallError';
    this.code = code;
    this.headers = new Headers(options.headers);
    this.body = options.body;
  }

  get [CALL_ERROR](): true {
    return true;
  }
}

/** Sends `code` (302 by default) with a `Location` header and an empty body. */
export class Redirect extends CallError {
  constructor(location: string, code = 302, options: Omit<CallErrorOptions, 'body'> = {}) {
    super(code, `Redirect(${code}) to ${location}`, options);
    this.name = 'Redirect';
    this.headers.set('location', location);
  }

  get [REDIRECT](): true {
    return true;
  }
}

export interface AccessDeniedOptions extends CallErrorOptions {
  /** Authentication scheme for `WWW-Authenticate`, title-cased; `Auth` when absent. */
  scheme?: string;
  realm?: string;
}

/** 401 with a `WWW-Authenticate: <Scheme>[ realm="<realm>"]` header. */
export class AccessDenied extends CallError {
  constructor(message = '', options: AccessDeniedOptions = {}) {
    super(401, message || 'AccessDenied(401)', options);
    this.name = 'AccessDenied';
    const scheme = titleCase(options.scheme || 'auth');
    this.headers.set('www-authenticate', options.realm ? `${scheme} realm="${options.realm}"` : scheme);
  }
}

/** Stops the handler and answers `code` with `body` rendered as a successful response. */
export class CallStop extends CallError {
  constructor(code = 200, body: unknown = undefined, options: Omit<CallErrorOptions, 'body'> = {}) {
    super(code, `CallStop(${code})`, { ...options, body });
    this.name = 'CallStop';
  }

  get [CALL_STOP](): true {
    return true;
  }
}

export function isCallError(error: unknown): error is CallError {
  return hasBrand(error, CALL_ERROR);
}

function hasBrand(error: unknown, brand: symbol): boolean {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[brand] === true;
}

/** A Redirect or a CallStop: its body is rendered as a success, not as an error message. */
export function answersAsSuccess(error: CallError): boolean {
  return hasBrand(error, REDIRECT) || hasBrand(error, CALL_STOP);
}

function titleCase(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1).toLowerCase();
}

/** Codes of the errors raised while building an application (never during a request). */
export type EndpointsErrorCode =
  | 'NO_PREFIX'
  | 'PREFIX_NOT_FOUND'
  | 'INVALID_OPTION'
  | 'DUPLICATE_MODULE'
  | 'DUPLICATE_ROUTE'
  | 'CONTROLLER_IMPORT_FAILED'
  | 'SIGNATURE_UNREADABLE'
  | 'INVALID_CAST'
  | 'INVALID_TYPES'
  | 'INVALID_ARGUMENT'
  | 'LISTEN_FAILED';

/** A configuration or startup problem; the message says what to change. */
export class EndpointsError extends Error {
  readonly code: EndpointsErrorCode;

  constructor(code: EndpointsErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EndpointsError';
    this.code = code;
  }
}
