/** A setting has an invalid value. The message names the setting, so startup can print it as is. */
export class SettingsError extends Error {
  readonly code = 'RATELIMIT_SETTINGS_INVALID';
  constructor(
    readonly setting: string,
    message: string,
  ) {
    super(`${setting}: ${message}`);
    this.name = 'SettingsError';
  }
}

/**
 * A counter store (Redis, Memcached) failed. The message is the backend's own error text: the
 * service returns it to gRPC callers as UNKNOWN and counts `should_rate_limit.redis_error`.
 */
export class StoreError extends Error {
  readonly code = 'RATELIMIT_STORE_FAILED';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreError';
  }
}
