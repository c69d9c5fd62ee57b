// The `ratelimit` command's server, once its arguments are read (bin/ratelimit.ts).
import { setLogger } from '@grpc/grpc-js';
import { reportReady, runPrimary, runsServers } from '../cluster.js';
import { createLogger, type Logger } from '../log.js';
import { startServer } from '../main.js';
import { readSettings, type Settings } from '../settings.js';
import { describeStartupError, type Listener, startupErrorDetail } from './startup-error.js';

/**
 * Reads the settings and runs the server (or, with RATELIMIT_WORKERS > 1, the cluster primary) until
 * a signal stops it; a failed start is one line on stderr naming `command`, and exit code 1.
 */
export async function runServer(command: string): Promise<void> {
  let settings: Settings;
  try {
    settings = readSettings();
  } catch (error) {
    failStartup(command, error, []);
  }
  const log = createLogger(settings.log.level, settings.log.format);
  if (!runsServers(settings.workers)) runPrimary(settings.workers, log);
  else await serve(command, settings, log);
}

async function serve(command: string, settings: Settings, log: Logger): Promise<void> {
  // The service never crashes on bad input: an unexpected error is logged and serving goes on.
  process.on('uncaughtException', (error) => log.error(`unexpected error: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => log.error(`unexpected rejection: ${String(reason)}`));

  const restoreGrpcLog = withoutGrpcBindLog();
  const starting = startServer(settings, { log });
  // Handled from before the first port listens: a signal sent as soon as a port answers, before the
  // start has returned, still shuts down gracefully (exit 0), not by the signal's default (CI caught
  // SIGTERM landing in that gap). A start that fails exits 1 through failStartup below.
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      log.warn(`received ${signal}, shutting down gracefully`);
      void starting.then(
        (server) => server.shutdown().then(() => process.exit(0)),
        () => undefined,
      );
    });
  }
  try {
    await starting;
  } catch (error) {
    failStartup(command, error, listeners(settings), settings.log.level === 'debug');
  } finally {
    restoreGrpcLog();
  }
  reportReady();
}

function listeners(settings: Settings): Listener[] {
  return [
    { name: 'gRPC', ...settings.grpc, hostSetting: 'GRPC_HOST', portSetting: 'GRPC_PORT', grpc: true },
    { name: 'HTTP', ...settings.http, hostSetting: 'HOST', portSetting: 'PORT' },
    { name: 'debug', ...settings.debug, hostSetting: 'DEBUG_HOST', portSetting: 'DEBUG_PORT' },
  ];
}

function failStartup(
  command: string,
  error: unknown,
  listeners: readonly Listener[],
  withStack = false,
): never {
  process.stderr.write(`${command}: ${describeStartupError(error, listeners)}\n`);
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
