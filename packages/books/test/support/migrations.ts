import type { Queryable } from '../../src/db/database.js';

/**
 * Every migration, in the order they apply: the one list the migration tests compare against, so a
 * new migration is added here once (and a test that applies "the rest" takes a slice from its own).
 */
export const MIGRATIONS = [
  '001_init.sql',
  '002_book_count.sql',
  '003_reservation_workflow.sql',
  '004_book_search.sql',
  '005_row_versions.sql',
  '006_book_search_index_no_pending_list.sql',
  '007_loans.sql',
  '008_audit_log.sql',
  '009_idempotency_keys.sql',
  '010_notices.sql',
] as const;

/** The migrations from `first` on, as a database that already had the ones before it applies them. */
export function migrationsFrom(first: (typeof MIGRATIONS)[number]): string[] {
  return MIGRATIONS.slice(MIGRATIONS.indexOf(first));
}

/** The migrations before `first`: the schema of a database made before it. */
export function migrationsBefore(first: (typeof MIGRATIONS)[number]): string[] {
  return MIGRATIONS.slice(0, MIGRATIONS.indexOf(first));
}

/** Drops every table of the current schema: a database back to before the first migration. */
export async function dropAllTables(db: Queryable): Promise<void> {
  const tables = await db.query<{ name: string }>(
    'select quote_ident(tablename) as name from pg_tables where schemaname = current_schema()',
  );
  await db.exec(`drop table ${tables.map(({ name }) => name).join(', ')} cascade`);
}
