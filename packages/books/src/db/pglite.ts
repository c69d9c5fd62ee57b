import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import type { Database, Queryable } from './database.js';

function queryable(target: PGlite | Transaction): Queryable {
  return {
    async query<Row>(sql: string, params: readonly unknown[] = []) {
      const result = await target.query<Row>(sql, [...params]);
      return result.rows;
    },
    async exec(sql: string) {
      await target.exec(sql);
    },
  };
}

/** The Database interface over an open PGlite. PGlite has one connection and queues statements itself. */
export function pgliteDatabase(pglite: PGlite): Database {
  return {
    driver: 'pglite',
    ...queryable(pglite),
    transaction: (work) => pglite.transaction((tx) => work(queryable(tx))),
    close: () => pglite.close(),
  };
}

/**
 * Embedded PostgreSQL (WASM). `dataDir` undefined keeps everything in memory; `snapshot` (a
 * `PGlite#dumpDataDir` blob) starts from a copy instead of an empty cluster, which skips initdb.
 */
export async function openPglite(dataDir: string | undefined, snapshot?: Blob): Promise<Database> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true });
  const pglite = await PGlite.create({
    ...(dataDir === undefined ? {} : { dataDir }),
    ...(snapshot === undefined ? {} : { loadDataDir: snapshot }),
  });
  return pgliteDatabase(pglite);
}
