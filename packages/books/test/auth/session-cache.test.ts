import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { CachingSessionStore, type SessionCacheOptions } from '../../src/auth/session-cache.js';
import { DatabaseSessionStore } from '../../src/auth/session-store.js';
import type { Clock } from '../../src/clock.js';
import type { Queryable } from '../../src/db/database.js';
import { UsersRepository } from '../../src/modules/users/users.repository.js';
import { openTestDatabase, TestClock, type TestDatabase } from '../support/service.js';

let database: TestDatabase;
let userId: string;
before(async () => {
  database = await openTestDatabase('pglite');
  const [user] = await database.db.query<{ id: string }>(
    "insert into users (issuer, subject, email) values ('urn:test', 'cache', 'cache@example.com') returning id",
  );
  userId = user?.id ?? '';
});
after(() => database.dispose());

/** The database, counting the session lookups that reach it. */
function counting(db: Queryable) {
  const counter = { lookups: 0 };
  const queryable: Queryable = {
    query(sql, params) {
      if (sql.startsWith('select id_hash, user_id, data, expires_at from sessions')) counter.lookups++;
      return db.query(sql, params);
    },
    exec: (sql) => db.exec(sql),
  };
  return { queryable, counter };
}

const idle = 30 * 60_000;

/** The cache wrapped around the database store, both on the same clock. */
function cachedStore(db: Queryable, idleTimeoutMs: number, clock: Clock, options?: SessionCacheOptions) {
  const inner = new DatabaseSessionStore(
    db,
    new UsersRepository(db, []),
    's'.repeat(32),
    idleTimeoutMs,
    clock,
  );
  return new CachingSessionStore(inner, clock, options);
}

test('a session found once is served from memory until the TTL ends', async () => {
  const clock = new TestClock();
  const { queryable, counter } = counting(database.db);
  const store = cachedStore(queryable, idle, clock.now, { ttlMs: 5000 });
  const id = await store.create(userId);
  assert.equal((await store.find(id))?.user?.id, userId);
  assert.equal((await store.find(id))?.user?.id, userId);
  assert.equal(counter.lookups, 1);
  clock.advance(5001);
  await store.find(id);
  assert.equal(counter.lookups, 2);
});

test('concurrent requests with an uncached session share one lookup and get their own copies', async () => {
  const { queryable, counter } = counting(database.db);
  const store = cachedStore(queryable, idle, new TestClock().now);
  const id = await store.create(userId);
  const sessions = await Promise.all(Array.from({ length: 5 }, () => store.find(id)));
  assert.equal(counter.lookups, 1);
  assert.ok(sessions.every((session) => session?.user?.id === userId));
  assert.equal(new Set(sessions).size, 5, 'each request may change its own copy');
});

test('requests that keep using a session do not keep its cache entry alive past the TTL', async () => {
  const clock = new TestClock();
  const { queryable, counter } = counting(database.db);
  const store = cachedStore(queryable, idle, clock.now, { ttlMs: 5000 });
  const id = await store.create(userId);
  for (let second = 0; second <= 6; second += 1) {
    const session = await store.find(id);
    assert.ok(session);
    await store.touch(session);
    clock.advance(1000);
  }
  assert.equal(counter.lookups, 2, 'looked up at 0 s, then again once the 5 s entry ran out');
});

test('logout in this process is seen at once; an unknown id is never cached', async () => {
  const { queryable, counter } = counting(database.db);
  const store = cachedStore(queryable, idle, new TestClock().now);
  const id = await store.create(userId);
  const session = await store.find(id);
  assert.ok(session);
  await store.delete(session.idHash);
  assert.equal(await store.find(id), undefined);
  assert.equal(await store.find('never-issued'), undefined);
  assert.equal(await store.find('never-issued'), undefined);
  assert.equal(counter.lookups, 4);
});

test('the idle timeout still applies to a cached session', async () => {
  const clock = new TestClock();
  const store = cachedStore(database.db, 10_000, clock.now, { ttlMs: 60_000 });
  const id = await store.create(userId);
  assert.ok(await store.find(id));
  clock.advance(10_001);
  assert.equal(await store.find(id), undefined);
});

test('data saved by a request is what the next request sees, and copies do not leak between requests', async () => {
  const store = cachedStore(database.db, idle, new TestClock().now);
  const id = await store.create(null);
  const first = await store.find(id);
  assert.ok(first);
  first.data = { ...first.data, savedUrl: '/books' };
  await store.saveData(first);
  const second = await store.find(id);
  assert.equal(second?.data.savedUrl, '/books');
  assert.notEqual(second, first);
  assert.ok(second);
  second.data = { other: true };
  assert.equal((await store.find(id))?.data.savedUrl, '/books', 'an unsaved change stays with its request');
});

test('a TTL of 0 turns the cache off', async () => {
  const { queryable, counter } = counting(database.db);
  const store = cachedStore(queryable, idle, new TestClock().now, { ttlMs: 0 });
  const id = await store.create(userId);
  await store.find(id);
  await store.find(id);
  assert.equal(counter.lookups, 2);
});

test('the cache holds at most maxEntries sessions, dropping the oldest', async () => {
  const { queryable, counter } = counting(database.db);
  const store = cachedStore(queryable, idle, new TestClock().now, {
    maxEntries: 1,
  });
  const [a, b] = [await store.create(userId), await store.create(userId)];
  await store.find(a);
  await store.find(b);
  await store.find(b);
  assert.equal(counter.lookups, 2, 'b is cached');
  await store.find(a);
  assert.equal(counter.lookups, 3, 'a was dropped to make room for b');
});
