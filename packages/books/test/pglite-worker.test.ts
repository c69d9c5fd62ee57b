import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { DataDirInUseError } from '../src/db/data-dir-lock.js';
import type { Database } from '../src/db/database.js';
import { hasSqlState, SqlState } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { openPgliteInWorker } from '../src/db/pglite-worker.js';

let db: Database;
before(async () => {
  db = await openPgliteInWorker({ dataDir: undefined, snapshot: undefined });
  await migrate(db);
});
after(() => db.close());

test('rows cross the thread with their types: uuid and text as strings, timestamptz as Date, int, bool, arrays', async () => {
  const [row] = await db.query<{
    id: string;
    at: Date;
    n: number;
    b: boolean;
    list: string[];
    nothing: null;
  }>(
    `select '0b9e0d1c-0000-4000-8000-000000000001'::uuid as id, timestamptz '2026-01-02 03:04:05Z' as at,
            42 as n, true as b, array['a', 'b'] as list, null as nothing`,
  );
  assert.deepEqual(row, {
    id: '0b9e0d1c-0000-4000-8000-000000000001',
    at: new Date('2026-01-02T03:04:05Z'),
    n: 42,
    b: true,
    list: ['a', 'b'],
    nothing: null,
  });
  const [echoed] = await db.query<{ at: Date }>('select $1::timestamptz as at', [new Date(0)]);
  assert.deepEqual(echoed?.at, new Date(0));
});

test('a database error keeps its SQLSTATE across the thread', async () => {
  await db.query("insert into users (issuer, subject, email) values ('urn:w', 'one', 'one@example.com')");
  const duplicate = db.query(
    "insert into users (issuer, subject, email) values ('urn:w', 'one', 'one@example.com')",
  );
  await assert.rejects(duplicate, (error: unknown) => hasSqlState(error, SqlState.uniqueViolation));
});

test('a transaction commits when its work resolves and rolls back when it throws', async () => {
  const count = async () =>
    (await db.query<{ n: number }>("select count(*)::int as n from users where issuer = 'urn:tx'"))[0]?.n;
  await db.transaction(async (tx) => {
    await tx.query("insert into users (issuer, subject, email) values ('urn:tx', 'kept', 'k@example.com')");
  });
  await assert.rejects(
    db.transaction(async (tx) => {
      await tx.query("insert into users (issuer, subject, email) values ('urn:tx', 'lost', 'l@example.com')");
      throw new Error('changed my mind');
    }),
    /changed my mind/,
  );
  assert.equal(await count(), 1);
});

test('statements outside a transaction wait for it: one writer at a time, as in process', async () => {
  const order: string[] = [];
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  const transaction = db.transaction(async (tx) => {
    await tx.query("insert into users (issuer, subject, email) values ('urn:order', 'a', 'a@example.com')");
    order.push('transaction wrote');
    await held;
    order.push('transaction ends');
  });
  // Sent while the transaction is open: it must not run (or see the row) before the commit.
  const outside = db
    .query<{ n: number }>("select count(*)::int as n from users where issuer = 'urn:order'")
    .then((rows) => order.push(`outside read ${rows[0]?.n}`));
  await new Promise((resolve) => setTimeout(resolve, 50));
  release();
  await Promise.all([transaction, outside]);
  assert.deepEqual(order, ['transaction wrote', 'transaction ends', 'outside read 1']);
});

test('in a data directory: locked while open, and what the worker wrote is there for the next open', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'books-pglite-worker-'));
  try {
    const first = await openPglite(dir, undefined, 'worker');
    await migrate(first);
    await assert.rejects(openPglite(dir), (error: unknown) => error instanceof DataDirInUseError);
    await first.query(
      "insert into users (issuer, subject, email) values ('urn:dir', 'kept', 'k@example.com')",
    );
    await first.close();
    const second = await openPglite(dir);
    try {
      const rows = await second.query<{ subject: string }>(
        "select subject from users where issuer = 'urn:dir'",
      );
      assert.deepEqual(rows, [{ subject: 'kept' }]);
    } finally {
      await second.close();
    }
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
