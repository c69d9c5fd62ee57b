import type { Database } from './database.js';
import { openPglite, type PgliteThread } from './pglite.js';
import { openPostgres } from './postgres.js';

export type DatabaseConfig =
  | { driver: 'pglite' /** undefined = in memory */; dataDir: string | undefined }
  | { driver: 'postgres'; url: string; poolMax: number; schema?: string };

/** Opens the database the configuration names: embedded PGlite (in `pgliteThread`), or a PostgreSQL server. */
export function openDatabase(config: DatabaseConfig, pgliteThread: PgliteThread = 'main'): Promise<Database> {
  if (config.driver === 'pglite') return openPglite(config.dataDir, undefined, pgliteThread);
  return openPostgres({
    connectionString: config.url,
    poolMax: config.poolMax,
    ...(config.schema === undefined ? {} : { schema: config.schema }),
  });
}
