import { EnvReader } from '../../env-reader.js';
import { SettingsError } from '../../errors.js';

/**
 * The service's EnvReader, for settings families with a primary prefix and an alias prefix
 * (REDIS_* / KVSTORE_*, REDIS_PERSECOND_* / KVSTORE_PERSECOND_*, MEMCACHE_* / OBJCACHE_*). The
 * primary spelling wins when both are set; errors name the variable the value came from.
 * Shared by the Redis and Memcached stores.
 */
export class PrefixedEnv {
  private readonly reader: EnvReader;

  constructor(
    env: NodeJS.ProcessEnv,
    private readonly prefix: string,
    private readonly aliasPrefix: string,
  ) {
    this.reader = new EnvReader(env);
  }

  /** The variable name and its non-empty value, or undefined when neither spelling is set. */
  raw(name: string): { name: string; value: string } | undefined {
    return this.reader.raw(this.prefix + name, [this.aliasPrefix + name]);
  }

  /** The primary spelling of a setting, for messages about values that are missing. */
  primary(name: string): string {
    return this.prefix + name;
  }

  string(name: string, fallback: string): string {
    return this.reader.string(this.prefix + name, fallback, [this.aliasPrefix + name]);
  }

  optionalString(name: string): string | undefined {
    return this.raw(name)?.value;
  }

  bool(name: string, fallback: boolean): boolean {
    return this.reader.bool(this.prefix + name, fallback, [this.aliasPrefix + name]);
  }

  /** A whole number in [min, 1000000] (pool sizes, limits, idle connection counts). */
  int(name: string, fallback: number, min = 0): number {
    const range = { min, max: 1_000_000 };
    return this.reader.integer(this.prefix + name, fallback, range, [this.aliasPrefix + name]);
  }

  /** A Go duration (`10s`, `500ms`, `1m30s`), in milliseconds. */
  durationMs(name: string, fallback: string): number {
    return this.reader.duration(this.prefix + name, fallback, [this.aliasPrefix + name]);
  }
}

/** `host:port` or `[v6]:port`, as Go's net.SplitHostPort reads them. */
export function parseHostPort(text: string, setting: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:[\]]*)):(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[3]) : Number.NaN;
  if (!match || port < 1 || port > 65_535) {
    throw new SettingsError(setting, `'${text}' is not a host:port address (e.g. 127.0.0.1:6379)`);
  }
  return { host: match[1] ?? (match[2] || '127.0.0.1'), port };
}

/** Splits a comma list, dropping blanks around items. */
export function splitList(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
