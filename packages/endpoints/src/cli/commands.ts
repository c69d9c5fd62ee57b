import { EndpointsError } from '../errors.js';

/** A subcommand: `endpoints <name> [arguments]`. Each parses its own arguments. */
export interface Command {
  /** One line for the command list of `endpoints --help`. */
  readonly summary: string;
  /** The command's own usage: what `endpoints <name> --help` prints. */
  readonly usage: string;
  run(argv: readonly string[]): Promise<void>;
}

export interface Selected {
  readonly name: string;
  readonly command: Command;
  readonly argv: readonly string[];
}

/**
 * Picks the subcommand named by the first argument. With no name (no arguments, or options first)
 * it is the default command, so `endpoints --prefix x` keeps meaning `endpoints serve --prefix x`.
 */
export function selectCommand(
  argv: readonly string[],
  commands: Readonly<Record<string, Command>>,
  defaultName: string,
): Selected {
  const [first, ...rest] = argv;
  if (first === undefined || first.startsWith('-')) {
    return { name: defaultName, command: commands[defaultName] as Command, argv };
  }
  const command = Object.hasOwn(commands, first) ? commands[first] : undefined;
  if (command === undefined) {
    throw new EndpointsError(
      'INVALID_ARGUMENT',
      `unknown command '${first}' (commands: ${Object.keys(commands).join(', ')})`,
    );
  }
  return { name: first, command, argv: rest };
}

/** `endpoints --help`: the commands, then the default command's usage. */
export function overview(commands: Readonly<Record<string, Command>>, defaultName: string): string {
  const width = Math.max(...Object.keys(commands).map((name) => name.length));
  const list = Object.entries(commands).map(
    ([name, command]) =>
      `  ${name.padEnd(width)}  ${command.summary}${name === defaultName ? ' (default)' : ''}`,
  );
  const fallback = commands[defaultName] as Command;
  return `Usage: endpoints [command] [options]\n\nCommands:\n${list.join('\n')}\n\n${fallback.usage}`;
}

/** The first sentence of a node:util parseArgs error, e.g. `Unknown option '--nope'`. */
export function argumentError(error: unknown): EndpointsError {
  const message = (error as Error).message.split(/\. (?=[A-Z])/)[0] as string;
  return new EndpointsError('INVALID_ARGUMENT', message);
}
