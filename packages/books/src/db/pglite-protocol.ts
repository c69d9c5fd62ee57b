/** What the main thread hands the PGlite worker thread at start (pglite-thread.ts). */
export interface ThreadStart {
  /** A data directory (the main thread holds its lock), or undefined for memory. */
  dataDir: string | undefined;
  /** A `dumpDataDir` copy to start an in-memory database from. */
  snapshot: Blob | undefined;
}

/** One request to the worker; `tx` names an open transaction (from `begin`) to run it in. */
export type ThreadRequest =
  | { id: number; op: 'query'; sql: string; params: unknown[]; tx?: number }
  | { id: number; op: 'exec'; sql: string; tx?: number }
  | { id: number; op: 'begin' }
  | { id: number; op: 'end'; tx: number; commit: boolean }
  | { id: number; op: 'close' };

/** The answer to request `id` (0: the database is open); `error` holds a database error's own fields. */
export type ThreadReply = ThreadAnswer | { id: number; error: Record<string, unknown> };

/** A request's success: the rows of a query (empty otherwise), and the transaction a `begin` opened. */
export interface ThreadAnswer {
  id: number;
  rows: unknown[];
  tx?: number;
}
