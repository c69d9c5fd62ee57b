import { EndpointsError, type EndpointsErrorCode } from '../errors.js';
import { type CliOptions, parseCliArgs, USAGE } from './args.js';
import { type Command, overview, selectCommand } from './commands.js';
import { INSPECT_USAGE, type InspectCommand, runInspect } from './inspect.js';
import { superviseWithReload } from './reload.js';
import { serve } from './serve.js';

const STOP_GRACE_MS = 5000;

/** Development runs TypeScript controllers through tsx; production loads compiled JavaScript only. */
async function prepareLoader(options: Pick<CliOptions, 'production'>): Promise<void> {
  // Running as .ts means a TypeScript loader is already active (tsx, the bin launcher).
  if (options.production || import.meta.url.endsWith('.ts')) return;
  // Both hooks, like `node --import tsx`: a .ts controller in a package without "type": "module"
  // is CommonJS to tsx, and the ESM hook alone cannot load it.
  const [esm, cjs] = await Promise.all([import('tsx/esm/api'), import('tsx/cjs/api')]);
  esm.register();
  cjs.register();
}

async function runServe(argv: readonly string[]): Promise<void> {
  const options = parseCliArgs(argv, process.env);
  if (options.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (options.reload) {
    superviseWithReload(options, argv);
    return;
  }
  await prepareLoader(options);
  const server = await serve(options);
  const stop = () => {
    // Finish requests in flight, but do not wait for idle keep-alive connections to time out.
    server.close(() => process.exit(0));
    server.closeIdleConnections();
    setTimeout(() => process.exit(0), STOP_GRACE_MS).unref();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  // Under --reload the supervisor talks over IPC: when it goes away, even killed, this server follows.
  if (process.send) process.once('disconnect', stop);
}

async function inspect(command: InspectCommand, argv: readonly string[]): Promise<void> {
  await prepareLoader({ production: process.env.NODE_ENV === 'production' });
  await runInspect(command, argv);
}

/** The subcommands; a new one is an entry here with its own module under src/cli. */
const COMMANDS: Readonly<Record<string, Command>> = {
  serve: { summary: 'serve the controllers over HTTP', usage: USAGE, run: runServe },
  openapi: {
    summary: 'print the OpenAPI 3.1 document of the controllers',
    usage: INSPECT_USAGE,
    run: (argv) => inspect('openapi', argv),
  },
  asyncapi: {
    summary: 'print the AsyncAPI 3.0 document of the WebSocket controllers',
    usage: INSPECT_USAGE,
    run: (argv) => inspect('asyncapi', argv),
  },
  client: {
    summary: 'write a typed HTTP and WebSocket client of the controllers (one TypeScript module)',
    usage: INSPECT_USAGE,
    run: (argv) => inspect('client', argv),
  },
  routes: {
    summary: 'print the route table, and what was not mounted and why',
    usage: INSPECT_USAGE,
    run: (argv) => inspect('routes', argv),
  },
};
const DEFAULT_COMMAND = 'serve';

/** What to change, where the error's own message is written for the library's callers. */
const CLI_HINTS: Partial<Record<EndpointsErrorCode, string>> = {
  INVALID_ARGUMENT: ' (see endpoints --help)',
  PREFIX_NOT_FOUND: '; pass --prefix (or set APP_PREFIX) with an existing directory, module file or package',
};

async function run(argv: readonly string[]): Promise<void> {
  if (argv[0] === '--help' || argv[0] === '-h') {
    process.stdout.write(`${overview(COMMANDS, DEFAULT_COMMAND)}\n`);
    return;
  }
  const selected = selectCommand(argv, COMMANDS, DEFAULT_COMMAND);
  await selected.command.run(selected.argv);
}

/**
 * The `endpoints` command. A usage or configuration error prints one line and exits 2; an unexpected
 * error prints one line and exits 1. `--debug` adds the stack.
 */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await run(argv);
  } catch (error) {
    const expected = error instanceof EndpointsError;
    const message = error instanceof Error ? error.message : String(error);
    const hint = (expected && CLI_HINTS[error.code]) || '';
    process.stderr.write(`endpoints: ${expected ? '' : 'unexpected error: '}${message}${hint}\n`);
    if (argv.includes('--debug') && error instanceof Error) process.stderr.write(`${error.stack}\n`);
    process.exitCode = expected ? 2 : 1;
  }
}
