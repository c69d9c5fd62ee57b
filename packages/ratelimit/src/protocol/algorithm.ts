/** The counting algorithms of a limit (rls_conf's fixed window, and this service's two more). */
export type Algorithm = 'fixed_window' | 'sliding_window' | 'token_bucket';

/**
 * How a counter is kept in a store, for the algorithms other than the fixed window (which
 * needs none of this): built once at load time, so a request allocates nothing for it.
 */
export type AlgorithmParams =
  | { readonly kind: 'sliding_window'; readonly windowMs: number }
  | {
      readonly kind: 'token_bucket';
      readonly windowMs: number;
      /** Tokens refilled per window (requests_per_unit). */
      readonly rate: number;
    };
