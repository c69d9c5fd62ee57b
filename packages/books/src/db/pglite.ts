import { mkdirSync } from 'node:fs';
import { PGlite, type Transaction } from '@electric-sql/pglite';
import { lockDataDir } from './data-dir-lock.js';
import type { Database, Queryable } from './database.js';
import { openPgliteInWorker } from './pglite-worker.js';

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
    // One in-process connection; PGlite queues what arrives while it is busy, and does not say how much.
    connections: () => ({ max: 1, open: 1, idle: 0, waiting: 0 }),
    transaction: (work) => pglite.transaction((tx) => work(queryable(tx))),
    close: () => pglite.close(),
  };
}

/** Where PGlite runs: in the server's own thread, or in a worker thread of its own (pglite-worker.ts). */
export type PgliteThread = 'main' | 'worker';

async function openIn(thread: PgliteThread, dataDir: string | undefined, snapshot: Blob | undefined) {
  if (thread === 'worker') return openPgliteInWorker({ dataDir, snapshot });
  const options =
    dataDir !== undefined ? { dataDir } : snapshot !== undefined ? { loadDataDir: snapshot } : {};
  return pgliteDatabase(await PGlite.create(options));
}

/**
 * Embedded PostgreSQL (WASM). `dataDir` undefined keeps everything in memory; `snapshot` (a
 * `PGlite#dumpDataDir` blob) starts an in-memory database from a copy, which skips initdb. A data
 * directory is locked for this process until close (DataDirInUseError names the pid that holds it).
 */
export async function openPglite(
  dataDir: string | undefined,
  snapshot?: Blob,
  thread: PgliteThread = 'main',
): Promise<Database> {
  if (dataDir === undefined) return openIn(thread, undefined, snapshot);
  mkdirSync(dataDir, { recursive: true });
  const lock = lockDataDir(dataDir);
  try {
    const database = await openIn(thread, dataDir, undefined);
    return {
      ...database,
      async close() {
        try {
          await database.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (error) {
    lock.release();
    throw error;
  }
}
