export type OidcErrorCode =
  | 'OIDC_CONFIG_INVALID'
  | 'OIDC_UNKNOWN_PROVIDER'
  | 'OIDC_DISCOVERY_FAILED'
  | 'OIDC_STATE_MISMATCH'
  | 'OIDC_AUTHORIZATION_DENIED'
  | 'OIDC_CODE_REJECTED'
  | 'OIDC_CALLBACK_INVALID'
  | 'OIDC_USERINFO_FAILED';

/**
 * A login failure with a code the HTTP layer maps to a status: configuration problems are the
 * operator's to fix (500/502), the others are a bad or replayed callback (400/401).
 */
export class OidcError extends Error {
  constructor(
    readonly code: OidcErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'OidcError';
  }
}
