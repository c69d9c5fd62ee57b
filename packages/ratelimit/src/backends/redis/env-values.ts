import { SettingsError } from '../../errors.js';

/**
 * Typed readers for environment settings that have a primary name and an alias (REDIS_* /
 * KVSTORE_*, MEMCACHE_* / OBJCACHE_*). The primary name wins when both are set; errors name the
 * variable the value came from, so the user knows which line of their environment to fix.
 * Shared by the Redis and Memcached stores.
 */
export class EnvReader {
  constructor(
    private readonly env: NodeJS.ProcessEnv,
    private readonly prefix: string,
    private readonly aliasPrefix: string,
  ) {}

  /** The variable name and its non-empty value, or undefined when neither spelling is set. */
  raw(name: string): { setting: string; value: string } | undefined {
    for (const setting of [this.prefix + name, this.aliasPrefix + name]) {
      const value = this.env[setting];
      if (value !== undefined && value !== '') return { setting, value };
    }
    return undefined;
  }

  /** The primary spelling of a setting, for messages about values that are missing. */
  primary(name: string): string {
    return this.prefix + name;
  }

  string(name: string, fallback: string): string {
    return this.raw(name)?.value ?? fallback;
  }

  optionalString(name: string): string | undefined {
    return this.raw(name)?.value;
  }

  bool(name: string, fallback: boolean): boolean {
    const found = this.raw(name);
    if (!found) return fallback;
    const parsed = parseGoBool(found.value);
    if (parsed === undefined) {
      throw new SettingsError(found.setting, `'${found.value}' is not a boolean (use true or false)`);
    }
    return parsed;
  }

  /** A whole number >= min. */
  int(name: string, fallback: number, min = 0): number {
    const found = this.raw(name);
    if (!found) return fallback;
    const value = found.value.trim();
    if (!/^[+-]?\d+$/.test(value) || Number(value) < min || !Number.isSafeInteger(Number(value))) {
      throw new SettingsError(found.setting, `'${found.value}' is not a whole number >= ${min}`);
    }
    return Number(value);
  }

  /** A Go duration (`10s`, `500ms`, `1m30s`), in milliseconds. */
  durationMs(name: string, fallbackMs: number): number {
    const found = this.raw(name);
    if (!found) return fallbackMs;
    const parsed = parseGoDurationMs(found.value);
    if (parsed === undefined) {
      throw new SettingsError(
        found.setting,
        `'${found.value}' is not a duration (use a number with a unit: ns, us, ms, s, m or h, e.g. 10s or 150ms)`,
      );
    }
    return parsed;
  }
}

const GO_BOOLS: Record<string, boolean> = {
  '1': true,
  t: true,
  T: true,
  true: true,
  TRUE: true,
  True: true,
  '0': false,
  f: false,
  F: false,
  false: false,
  FALSE: false,
  False: false,
};

/** Booleans as Go's strconv.ParseBool accepts them, which is what the reference reads. */
export function parseGoBool(text: string): boolean | undefined {
  return Object.hasOwn(GO_BOOLS, text.trim()) ? GO_BOOLS[text.trim()] : undefined;
}

const DURATION_UNIT_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;

/** Parses Go's time.ParseDuration syntax (non-negative only) into milliseconds. */
export function parseGoDurationMs(text: string): number | undefined {
  const value = text.trim();
  if (value === '0') return 0;
  if (value === '') return undefined;
  let total = 0;
  DURATION_PART.lastIndex = 0;
  while (DURATION_PART.lastIndex < value.length) {
    const start = DURATION_PART.lastIndex;
    const match = DURATION_PART.exec(value);
    if (!match || match.index !== start) return undefined;
    total += Number(match[1]) * (DURATION_UNIT_MS[match[2] as string] as number);
  }
  return total;
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
