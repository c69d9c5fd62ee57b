import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchSchema {
  /** Server environment that puts a bench server on this schema (see servers/database.ts). */
  env: NodeJS.ProcessEnv;
  /** Drops the schema. */
  cleanup(): Promise<void>;
}

/** A fresh schema on the PostgreSQL server at `url`, shared by the bench servers of one run. */
export async function benchSchema(url: string): Promise<BenchSchema> {
  const schema = `books_bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`create schema ${schema}`);
  await admin.end();
  return {
    env: { BENCH_PG_URL: url, BENCH_PG_SCHEMA: schema },
    async cleanup() {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      await client.query(`drop schema ${schema} cascade`);
      await client.end();
    },
  };
}
