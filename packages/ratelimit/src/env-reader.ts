import { SettingsError } from './errors.js';

interface Range {
  readonly min: number;
  readonly max: number;
}

/**
 * Typed reads of environment settings with aliases (the spec's generic spellings) and errors
 * that name the setting. An empty value counts as unset, like the reference's envconfig.
 */
export class EnvReader {
  constructor(private readonly env: NodeJS.ProcessEnv) {}

  /** The first non-empty value among the name and its aliases, with the name it came from. */
  raw(name: string, aliases: readonly string[] = []): { name: string; value: string } | undefined {
    for (const candidate of [name, ...aliases]) {
      const value = this.env[candidate];
      if (value !== undefined && value !== '') return { name: candidate, value };
    }
    return undefined;
  }

  string(name: string, fallback: string, aliases?: readonly string[]): string {
    return this.raw(name, aliases)?.value ?? fallback;
  }

  bool(name: string, fallback: boolean, aliases?: readonly string[]): boolean {
    const found = this.raw(name, aliases);
    if (!found) return fallback;
    const parsed = parseGoBool(found.value);
    if (parsed === undefined) {
      throw new SettingsError(found.name, `'${found.value}' is not a boolean (use true or false)`);
    }
    return parsed;
  }

  integer(name: string, fallback: number, range: Range, aliases?: readonly string[]): number {
    return this.numeric(name, fallback, range, 'an integer', aliases, (text) =>
      /^[-+]?\d+$/.test(text.trim()) && Number.isSafeInteger(Number(text)) ? Number(text) : Number.NaN,
    );
  }

  port(name: string, fallback: number, aliases?: readonly string[]): number {
    return this.integer(name, fallback, { min: 0, max: 65_535 }, aliases);
  }

  number(name: string, fallback: number, range: Range, aliases?: readonly string[]): number {
    return this.numeric(name, fallback, range, 'a number', aliases, (text) =>
      text.trim() === '' ? Number.NaN : Number(text),
    );
  }

  private numeric(
    name: string,
    fallback: number,
    range: Range,
    what: string,
    aliases: readonly string[] | undefined,
    parse: (text: string) => number,
  ): number {
    const found = this.raw(name, aliases);
    if (!found) return fallback;
    const value = parse(found.value);
    if (!Number.isFinite(value) || value < range.min || value > range.max) {
      throw new SettingsError(
        found.name,
        `'${found.value}' is not ${what} between ${range.min} and ${range.max}`,
      );
    }
    return value;
  }

  /** A Go duration (`300ms`, `1.5h`, `2h45m`), in milliseconds. */
  duration(name: string, fallback: string, aliases?: readonly string[]): number {
    const found = this.raw(name, aliases);
    const text = found?.value ?? fallback;
    const ms = parseGoDuration(text);
    if (ms === undefined || ms < 0) {
      throw new SettingsError(
        found?.name ?? name,
        `'${text}' is not a duration (use Go syntax such as 500ms, 10s, 1m30s or 24h)`,
      );
    }
    return ms;
  }

  oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[], aliases?: readonly string[]): T {
    const found = this.raw(name, aliases);
    if (!found) return fallback;
    const match = allowed.find((option) => option.toLowerCase() === found.value.toLowerCase());
    if (!match) throw new SettingsError(found.name, `'${found.value}' is not one of ${allowed.join(', ')}`);
    return match;
  }

  /** `k1:v1,k2:v2` (or another separator) into ordered pairs. */
  pairs(
    name: string,
    separator: ':' | '=',
    aliases?: readonly string[],
  ): ReadonlyArray<readonly [string, string]> {
    const found = this.raw(name, aliases);
    if (!found) return [];
    return found.value.split(',').map((item) => {
      const at = item.indexOf(separator);
      if (at <= 0) {
        throw new SettingsError(found.name, `'${item}' is not of the form key${separator}value`);
      }
      return [item.slice(0, at).trim(), item.slice(at + 1).trim()] as const;
    });
  }

  list(name: string, aliases?: readonly string[]): readonly string[] {
    const found = this.raw(name, aliases);
    if (!found) return [];
    return found.value
      .split(',')
      .map((item) => item.trim())
      .filter((item) => item !== '');
  }
}

const GO_TRUE = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);
const GO_FALSE = new Set(['0', 'f', 'F', 'FALSE', 'false', 'False']);

/** Go's strconv.ParseBool. */
export function parseGoBool(text: string): boolean | undefined {
  if (GO_TRUE.has(text)) return true;
  if (GO_FALSE.has(text)) return false;
  return undefined;
}

const DURATION_UNITS_MS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/** Go's time.ParseDuration, in milliseconds; undefined when the text is not a duration. */
export function parseGoDuration(text: string): number | undefined {
  const match = /^([-+]?)((?:\d+(?:\.\d*)?|\.\d+)(?:ns|us|µs|μs|ms|s|m|h))+$/.exec(text);
  if (text === '0') return 0;
  if (!match) return undefined;
  let total = 0;
  for (const part of text.replace(/^[-+]/, '').matchAll(/(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/g)) {
    total += Number(part[1]) * (DURATION_UNITS_MS[part[2] as string] as number);
  }
  return match[1] === '-' ? -total : total;
}
