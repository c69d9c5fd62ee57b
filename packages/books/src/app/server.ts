import type { FastifyInstance } from 'fastify';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import { migrate } from '../db/migrate.js';
import { openDatabase } from '../db/open.js';
import { logDestination, resolveLogFormat } from '../log-format.js';
import { buildApp } from './app.js';

export interface RunningService {
  app: FastifyInstance;
  db: Database;
  url: string;
  close(): Promise<void>;
}

/** Opens the database, applies pending migrations, builds the app and listens. */
export async function startService(config: Config): Promise<RunningService> {
  const db = await openDatabase(config.database, config.pgliteThread);
  try {
    await migrate(db);
    const format = resolveLogFormat(config.logFormat, process.stdout);
    const logger = { level: config.logLevel, stream: logDestination(format, process.stdout) };
    const app = await buildApp({ config, db, logger });
    if (config.session.secretIsDevelopmentDefault) {
      app.log.warn(
        'SESSION_SECRET is not set: using the development default (refused when NODE_ENV=production)',
      );
    }
    if (config.oidcProviders.length === 0) {
      app.log.warn('no login provider is configured (OIDC_PROVIDERS): nobody can sign in; see .env.example');
    }
    const url = await app.listen({ port: config.port, host: config.host });
    return {
      app,
      db,
      url,
      async close() {
        await app.close();
        await db.close();
      },
    };
  } catch (error) {
    await db.close();
    throw error;
  }
}
