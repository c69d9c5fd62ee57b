#!/usr/bin/env node
// The rate limit server: reads the settings from the environment, starts, and shuts down
// gracefully on SIGTERM, SIGINT or SIGHUP (health fails first, then in-flight calls finish).
// With RATELIMIT_WORKERS > 1 this process becomes the cluster primary and the workers serve.
import { reportReady, runPrimary, runsServers } from '../src/cluster.js';
import { SettingsError } from '../src/errors.js';
import { createLogger } from '../src/log.js';
import { startServer } from '../src/main.js';
import { readSettings } from '../src/settings.js';

let settings: ReturnType<typeof readSettings>;
try {
  settings = readSettings();
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`ratelimit: invalid setting ${error.message}\n`);
  process.exit(1);
}

const log = createLogger(settings.log.level, settings.log.format);
if (!runsServers(settings.workers)) {
  runPrimary(settings.workers, log);
} else {
  await serve(settings);
}

async function serve(settings: ReturnType<typeof readSettings>): Promise<void> {
  // The service never crashes on bad input: an unexpected error is logged and serving goes on.
  process.on('uncaughtException', (error) => log.error(`unexpected error: ${error.stack ?? error.message}`));
  process.on('unhandledRejection', (reason) => log.error(`unexpected rejection: ${String(reason)}`));

  let server: Awaited<ReturnType<typeof startServer>>;
  try {
    server = await startServer(settings, { log });
  } catch (error) {
    process.stderr.write(`ratelimit: cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  reportReady();

  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.once(signal, () => {
      log.warn(`received ${signal}, shutting down gracefully`);
      void server.shutdown().then(() => process.exit(0));
    });
  }
}
