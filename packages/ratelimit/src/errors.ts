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
 * The server cannot start with what its settings point at (a config directory that cannot be
 * read). The message is the whole line to print: the value, what is wrong and the setting to change.
 */
export class StartupError extends Error {
  readonly code = 'RATELIMIT_STARTUP_FAILED';
  constructor(message: string) {
    super(message);
    this.name = 'StartupError';
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

/**
 * A rate limit config document is invalid. The message is the reference's `<name>: <message>`
 * text, e.g. `config.basic.yaml: config error, unknown key 'ratelimit'`.
 */
export class ConfigError extends Error {
  readonly code = 'RATELIMIT_CONFIG_INVALID';
  constructor(
    readonly fileName: string,
    readonly detail: string,
  ) {
    super(`${fileName}: ${detail}`);
    this.name = 'ConfigError';
  }
}

/**
 * A ShouldRateLimit call cannot be answered (empty domain, no descriptors, no config loaded,
 * bad limit override). gRPC returns it as UNKNOWN with this message; /json answers 400.
 */
export class ServiceError extends Error {
  readonly code = 'RATELIMIT_SERVICE_ERROR';
  constructor(message: string) {
    super(message);
    this.name = 'ServiceError';
  }
}
