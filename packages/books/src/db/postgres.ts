import pg from 'pg';
import type { Database, Queryable } from './database.js';
import { StatementNames } from './statement-names.js';

export interface PostgresOptions {
  connectionString: string;
  poolMax: number;
  /** Puts every connection on this schema (tests use a fresh schema per run). */
  schema?: string;
}

function queryable(client: pg.Pool | pg.PoolClient, statements: StatementNames): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const name = statements.nameFor(sql);
      const values = [...params];
      const result = await client.query(
        name === undefined ? { text: sql, values } : { name, text: sql, values },
      );
      return result.rows as Row[];
    },
    async exec(sql: string) {
      await client.query(sql);
    },
  };
}

/** A PostgreSQL server through a pg connection pool. */
export async function openPostgres(options: PostgresOptions): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.poolMax,
    ...(options.schema === undefined ? {} : { options: `-c search_path=${options.schema}` }),
  });
  // An idle client that loses its server must not crash the process; the next query reports it.
  pool.on('error', () => {});
  // Fail at startup, with the server's own message, rather than on the first request.
  await pool.query('select 1');
  const statements = new StatementNames();
  return {
    driver: 'postgres',
    ...queryable(pool, statements),
    connections: () => ({
      max: options.poolMax,
      open: pool.totalCount,
      idle: pool.idleCount,
      waiting: pool.waitingCount,
    }),
    async transaction(work) {
      const client = await pool.connect();
      try {
        await client.query('begin');
        const result = await work(queryable(client, statements));
        await client.query('commit');
        return result;
      } catch (error) {
        await client.query('rollback').catch(() => {});
        throw error;
      } finally {
        client.release();
      }
    },
    close: () => pool.end(),
  };
}
