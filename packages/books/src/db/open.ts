import type { Database } from './database.js';
import { openPglite } from './pglite.js';
import { openPostgres } from './postgres.js';

export type DatabaseConfig =
  | { driver: 'pglite' /** undefined = in memory */; dataDir: string | undefined }
  | { driver: 'postgres'; url: string; poolMax: number; schema?: string };

/** Opens the database the configuration names: embedded PGlite, or a PostgreSQL server. */
export function openDatabase(config: DatabaseConfig): Promise<Database> {
  if (config.driver === 'pglite') return openPglite(config.dataDir);
  return openPostgres({
    connectionString: config.url,
    poolMax: config.poolMax,
    ...(config.schema === undefined ? {} : { schema: config.schema }),
  });
}
