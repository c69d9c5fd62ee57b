import { EndpointsError } from '../errors.js';
import { type CliOptions, parseCliArgs, USAGE } from './args.js';
import { isInspectCommand, runInspect } from './inspect.js';
import { superviseWithReload } from './reload.js';
import { serve } from './serve.js';

const STOP_GRACE_MS = 5000;

/** True when a TypeScript loader (tsx) is already active in this process. */
function hasTypeScriptLoader(): boolean {
  const flags = [...process.execArgv, process.env.NODE_OPTIONS ?? ''].join(' ');
  return flags.includes('tsx');
}

/** Development runs TypeScript controllers through tsx; production loads compiled JavaScript only. */
async function prepareLoader(options: Pick<CliOptions, 'production'>): Promise<void> {
  if (options.production || hasTypeScriptLoader()) return;
  const { register } = await import('tsx/esm/api');
  register();
}

async function run(argv: readonly string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (isInspectCommand(command)) {
    await prepareLoader({ production: process.env.NODE_ENV === 'production' });
    await runInspect(command, rest);
    return;
  }
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

/** The `endpoints` command. Configuration errors print their message and exit with status 2. */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await run(argv);
  } catch (error) {
    if (!(error instanceof EndpointsError)) throw error;
    process.stderr.write(`endpoints: ${error.message}\n`);
    process.exitCode = 2;
  }
}
