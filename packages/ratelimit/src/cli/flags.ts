/** A flag of a Go-style command line. */
export interface FlagSpec {
  readonly name: string;
  readonly usage: string;
  readonly kind: 'string' | 'bool' | 'list';
  readonly default?: string;
}

export class FlagError extends Error {
  readonly code = 'RATELIMIT_BAD_FLAG';
}

export interface ParsedFlags {
  readonly strings: ReadonlyMap<string, string>;
  readonly lists: ReadonlyMap<string, readonly string[]>;
  /** Flags in the order given, for the reference client's `Flag: --name="value"` echo. */
  readonly given: ReadonlyArray<readonly [string, string]>;
}

/**
 * Parses Go `flag` syntax: `-name value`, `-name=value`, `--name=value`; bool flags take no
 * value unless written `-name=false`; a `list` flag may repeat.
 */
export function parseFlags(argv: readonly string[], specs: readonly FlagSpec[]): ParsedFlags {
  const byName = new Map(specs.map((spec) => [spec.name, spec]));
  const strings = new Map<string, string>();
  const lists = new Map<string, string[]>();
  const given: Array<[string, string]> = [];
  for (const spec of specs) {
    if (spec.kind === 'list') lists.set(spec.name, []);
    else strings.set(spec.name, spec.default ?? (spec.kind === 'bool' ? 'false' : ''));
  }
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    const match = /^--?([^=]+)(?:=(.*))?$/s.exec(arg);
    if (!match) throw new FlagError(`unexpected argument: ${arg}`);
    const name = match[1] as string;
    const spec = byName.get(name);
    if (!spec) throw new FlagError(`flag provided but not defined: -${name}`);
    let value = match[2];
    if (value === undefined) {
      if (spec.kind === 'bool') value = 'true';
      else {
        value = argv[++i];
        if (value === undefined) throw new FlagError(`flag needs an argument: -${name}`);
      }
    }
    if (spec.kind === 'bool' && !['true', 'false', '1', '0'].includes(value)) {
      throw new FlagError(`invalid boolean value "${value}" for -${name}`);
    }
    if (spec.kind === 'list') lists.get(name)?.push(value);
    else strings.set(name, value);
    given.push([name, value]);
  }
  return { strings, lists, given };
}

export function usage(command: string, specs: readonly FlagSpec[]): string {
  const lines = specs.map(
    (spec) => `  -${spec.name}${spec.kind === 'bool' ? '' : ' value'}\n    \t${spec.usage}`,
  );
  return `Usage of ${command}:\n${lines.join('\n')}\n`;
}

/** Parses the process arguments, or prints the error and the usage and exits 2, like Go's flag package. */
export function parseFlagsOrExit(command: string, specs: readonly FlagSpec[]): ParsedFlags {
  try {
    return parseFlags(process.argv.slice(2), specs);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    process.stderr.write(`${error.message}\n${usage(command, specs)}`);
    process.exit(2);
  }
}
