#!/usr/bin/env node
// The rate limit server: reads the settings from the environment, starts, and shuts down
// gracefully on SIGTERM, SIGINT or SIGHUP (health fails first, then in-flight calls finish).
// With RATELIMIT_WORKERS > 1 this process becomes the cluster primary and the workers serve.
// A failed start prints one line naming the setting to change and exits 1 (LOG_LEVEL=debug adds the stack).
import { setLogger } from '@grpc/grpc-js';
import { exitWithUsageError, FlagError } from '../src/cli/flags.js';
import { parseServerArgs, SERVER_USAGE } from '../src/cli/server-args.js';
import { describeStartupError, type Listener, startupErrorDetail } from '../src/cli/startup-error.js';
import { reportReady, runPrimary, runsServers } from '../src/cluster.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import { readSettings, type Settings } from '../src/settings.js';

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

let settings: Settings;
try {
  settings = readSettings();
} catch (error) {
  failStartup(error, []);
}

const log = createLogger(settings.log.level, settings.log.format);
if (!runsServers(settings.workers)) {
  runPrimary(settings.workers, log);
} else {
  await serve(settings);
}

async function serve(settings: Settings): Promise<void> {
  // The service never crashes on bad input: an unexpected error is logged and serving goes on.
  process.on('uncaughtException', (error) => log.error(`unexpected error: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => log.error(`unexpected rejection: ${String(reason)}`));

  let server: Awaited<ReturnType<typeof startServer>>;
  const restoreGrpcLog = withoutGrpcBindLog();
  try {
    server = await startServer(settings, { log });
  } catch (error) {
    failStartup(error, listeners(settings), settings.log.level === 'debug');
  } finally {
    restoreGrpcLog();
  }
  reportReady();

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      log.warn(`received ${signal}, shutting down gracefully`);
      void server.shutdown().then(() => process.exit(0));
    });
  }
}

function listeners(settings: Settings): Listener[] {
  return [
    { name: 'gRPC', ...settings.grpc, hostSetting: 'GRPC_HOST', portSetting: 'GRPC_PORT', grpc: true },
    { name: 'HTTP', ...settings.http, hostSetting: 'HOST', portSetting: 'PORT' },
    { name: 'debug', ...settings.debug, hostSetting: 'DEBUG_HOST', portSetting: 'DEBUG_PORT' },
  ];
}

function failStartup(error: unknown, listeners: readonly Listener[], withStack = false): never {
  process.stderr.write(`${COMMAND}: ${describeStartupError(error, listeners)}\n`);
  if (withStack) process.stderr.write(`${startupErrorDetail(error)}\n`);
  process.exit(1);
}

/**
 * grpc-js logs a failed bind (`E No address added out of total 1 resolved`) besides rejecting;
 * the rejection becomes this command's one line, so the log copy is dropped while starting.
 */
function withoutGrpcBindLog(): () => void {
  const stderrLogger = {
    error: (message: unknown, ...rest: unknown[]) => {
      if (String(message).startsWith('No address added')) return;
      console.error(`E ${String(message)}`, ...rest);
    },
    info: (message: unknown, ...rest: unknown[]) => console.error(`I ${String(message)}`, ...rest),
    debug: (message: unknown, ...rest: unknown[]) => console.error(`D ${String(message)}`, ...rest),
  };
  setLogger(stderrLogger);
  return () => setLogger(console);
}
