import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrate } from '../src/db/migrate.js';
import { dropAllTables, MIGRATIONS } from './support/migrations.js';
import { openTestDatabase, postgresSkip } from './support/service.js';

test('concurrent migrators on one PostgreSQL schema apply each migration exactly once', {
  skip: postgresSkip(),
}, async () => {
  const database = await openTestDatabase('postgres');
  try {
    await dropAllTables(database.db);
    const results = await Promise.all([migrate(database.db), migrate(database.db), migrate(database.db)]);
    assert.deepEqual(results.flatMap((result) => result.applied).sort(), MIGRATIONS);
    const tables = await database.db.query<{ name: string }>(
      'select table_name as name from information_schema.tables where table_schema = current_schema() order by 1',
    );
    assert.deepEqual(
      tables.map((row) => row.name),
      [
        'audit_events',
        'book_count',
        'books',
        'idempotency_keys',
        'notice_settings',
        'notices',
        'reservations',
        'schema_migrations',
        'sessions',
        'users',
      ],
    );
  } finally {
    await database.dispose();
  }
});
