#!/usr/bin/env node
// The rate limit server: reads the settings from the environment, starts, and shuts down
// gracefully on SIGTERM, SIGINT or SIGHUP (health fails first, then in-flight calls finish).
// With RATELIMIT_WORKERS > 1 this process becomes the cluster primary and the workers serve.
// A failed start prints one line naming the setting to change and exits 1 (LOG_LEVEL=debug adds the stack).
import { exitWithUsageError, FlagError } from '../src/cli/flags.js';
import { parseServerArgs, SERVER_USAGE } from '../src/cli/server-args.js';

const COMMAND = 'ratelimit';

try {
  if (parseServerArgs(process.argv.slice(2)) === 'help') {
    process.stdout.write(SERVER_USAGE);
    process.exit(0);
  }
} catch (error) {
  if (!(error instanceof FlagError)) throw error;
  exitWithUsageError(COMMAND, error.message);
}

// The server's modules load only now: help and a usage error answer without them.
const { runServer } = await import('../src/cli/run-server.js');
await runServer(COMMAND);
