/** How a failure relates to the request; the HTTP layer maps each kind to a status code. */
export type FailureKind =
  | 'invalid'
  | 'unauthenticated'
  | 'forbidden'
  | 'not_found'
  | 'method_not_allowed'
  | 'not_acceptable'
  | 'conflict'
  | 'unprocessable'
  | 'rate_limited'
  | 'precondition_failed'
  | 'uri_too_long'
  | 'unsupported_media_type';

/** A failure the caller can act on: a stable code plus a message that says what to do. */
export class AppError extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}
