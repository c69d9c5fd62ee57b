import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { ApiClient } from './support/client.js';
import { createBook } from './support/fixtures-api.js';
import { MIGRATIONS } from './support/migrations.js';
import { openTestDatabase, startTestService } from './support/service.js';
import { createTestSession } from './support/test-sessions.js';

const dataDir = await mkdtemp(join(tmpdir(), 'books-pglite-'));
after(() => rm(dataDir, { recursive: true, force: true }));

test('books, reservations and sessions survive a restart on the PGlite data directory', async () => {
  const first = await startTestService('pglite', { database: await openTestDatabase('pglite', dataDir) });
  const admin = await createTestSession(first, { role: 'ROLE_ADMIN' });
  const book = await createBook(new ApiClient(first.url), admin);
  const reservation = await new ApiClient(first.url).post(`/books/${book.id}/reservations`, {
    session: admin,
  });
  assert.equal(reservation.status, 201);
  await first.close();

  const second = await startTestService('pglite', { database: await openTestDatabase('pglite', dataDir) });
  try {
    const api = new ApiClient(second.url);
    const read = await api.get(`/books/${book.id}`, { session: admin });
    assert.equal(read.status, 200, 'the old session cookie still works: sessions live in the database');
    assert.equal(read.body.title, book.title);
    const reread = await api.get(`/books/${book.id}/reservations/${reservation.body.id}`, { session: admin });
    assert.equal(reread.body.status, 'READY');
    const migrations = await second.db.query<{ name: string }>('select name from schema_migrations');
    assert.deepEqual(
      migrations.map((row) => row.name),
      MIGRATIONS,
      'a restart applies no migration twice',
    );
  } finally {
    await second.close();
  }
});
