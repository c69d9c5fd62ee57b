/**
 * CONTRACT between config sources (file watcher, xDS) and the config loader (src/config/).
 * A source delivers the complete set of documents each time (state of the world).
 */
export type ConfigSource =
  /** A YAML file: `name` is the goruntime key used in error messages, e.g. `config.basic.yaml`. */
  | { readonly kind: 'yaml'; readonly name: string; readonly text: string }
  /** An already-structured document (xDS RateLimitConfig converted to the YAML shape); `name` is its name. */
  | { readonly kind: 'object'; readonly name: string; readonly value: unknown };

/**
 * Applies a full set of documents. Throws an Error whose message is the reference's validation
 * text (e.g. `config.basic.yaml: config error, unknown key 'ratelimit'`) when the set is invalid;
 * the previous config then stays in force and `config_load_error` has been counted.
 */
export type ApplyConfig = (sources: readonly ConfigSource[]) => void;
