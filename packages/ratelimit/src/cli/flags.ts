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

/** Go's flag usage; `footer` adds what the flags do not say (settings read from the environment). */
export function usage(command: string, specs: readonly FlagSpec[], footer = ''): string {
  const lines = specs.map(
    (spec) => `  -${spec.name}${spec.kind === 'bool' ? '' : ' value'}\n    \t${spec.usage}`,
  );
  const help = '  -h, -help, --help\n    \tprint this usage and exit';
  return `Usage of ${command}:\n${[...lines, help].join('\n')}\n${footer}`;
}

/** `-h`, `-help` and `--help` ask for the usage, as in Go's flag package. */
function asksForHelp(argv: readonly string[]): boolean {
  return argv.some((arg) => arg === '-h' || arg === '-help' || arg === '--help');
}

/**
 * Parses the process arguments. Help prints the usage to stdout and exits 0; a bad flag prints one
 * line naming it and pointing at `--help`, and exits 2, Go's code for a usage error.
 */
export function parseFlagsOrExit(command: string, specs: readonly FlagSpec[], footer?: string): ParsedFlags {
  const argv = process.argv.slice(2);
  if (asksForHelp(argv)) {
    process.stdout.write(usage(command, specs, footer));
    process.exit(0);
  }
  try {
    return parseFlags(argv, specs);
  } catch (error) {
    if (!(error instanceof FlagError)) throw error;
    exitWithUsageError(command, error.message);
  }
}

/** The one-line usage error of every command: `<command>: <problem> (see <command> --help)`, exit 2. */
export function exitWithUsageError(command: string, problem: string): never {
  process.stderr.write(`${command}: ${problem} (see ${command} --help)\n`);
  process.exit(2);
}
