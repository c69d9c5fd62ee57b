/** Runs SQL. Both drivers return timestamptz as Date, uuid as string and jsonb as parsed JSON. */
export interface Queryable {
  /** One statement with `$1`-style parameters; returns its rows. */
  query<Row>(sql: string, params?: readonly unknown[]): Promise<Row[]>;
  /** A script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** Connection use, for metrics: PGlite is one connection; PostgreSQL a pool. */
export interface ConnectionStats {
  max: number;
  open: number;
  idle: number;
  /** Requests waiting for a connection. */
  waiting: number;
}

export interface Database extends Queryable {
  readonly driver: 'pglite' | 'postgres';
  connections(): ConnectionStats;
  /** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(work: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/** SQLSTATE codes the services turn into domain answers. */
export const SqlState = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
} as const;

/** True when `error` is a database error with the given SQLSTATE (both drivers expose it as `code`). */
export function hasSqlState(error: unknown, state: string): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === state;
}
