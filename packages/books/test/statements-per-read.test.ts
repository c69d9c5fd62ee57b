import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Database, Queryable } from '../src/db/database.js';
import { ApiClient } from './support/client.js';
import { createBook, reserve } from './support/fixtures-api.js';
import {
  type Driver,
  openTestDatabase,
  postgresSkip,
  startTestService,
  type TestService,
} from './support/service.js';
import { createTestSession, type TestSession } from './support/test-sessions.js';

const DAY_MS = 86_400_000;
const HTML = 'text/html,application/xhtml+xml';

/** The database, with every statement run through it (in transactions too) recorded in `statements`. */
function countingDatabase(db: Database): { db: Database; statements: string[] } {
  const statements: string[] = [];
  const counted = (target: Queryable): Queryable => ({
    query(sql, params) {
      statements.push(sql.replace(/\s+/g, ' ').trim());
      return target.query(sql, params);
    },
    exec(sql) {
      statements.push(sql.replace(/\s+/g, ' ').trim());
      return target.exec(sql);
    },
  });
  return {
    statements,
    db: {
      driver: db.driver,
      ...counted(db),
      connections: () => db.connections(),
      transaction: (work) => db.transaction((tx) => work(counted(tx))),
      close: () => db.close(),
    },
  };
}

function statementsSuite(driver: Driver, skip: false | string) {
  describe(`SQL statements per read (${driver})`, { skip }, () => {
    let service: TestService;
    let statements: string[];
    let api: ApiClient;
    let admin: TestSession;
    let reader: TestSession;

    before(async () => {
      const database = await openTestDatabase(driver);
      const counting = countingDatabase(database.db);
      statements = counting.statements;
      service = await startTestService(driver, {
        database: { db: counting.db, dispose: database.dispose },
        // The notice worker's rounds (a READY reservation queues a notice) are background statements, not
        // the read's: polling once an hour keeps them out of the counted window (CI saw one land in it).
        env: { SESSION_IDLE_TIMEOUT: '10000h', NOTICE_POLL_INTERVAL: '1h' },
      });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
      reader = await createTestSession(service);
    });
    after(() => service?.close());

    /** The statements one GET runs, after a first GET of the same path has cached the session. */
    const statementsOf = async (path: string, accept = 'application/json') => {
      const get = () => api.get(path, { session: reader, headers: { accept } });
      assert.equal((await get()).status, 200);
      statements.length = 0;
      const response = await get();
      assert.equal(response.status, 200);
      return { statements: [...statements], body: response.body };
    };

    test('a read of one book or one page is one statement while the session is cached, with a pickup deadline ahead', async () => {
      const book = await createBook(api, admin, { copies: 1 });
      const held = await reserve(api, admin, book.id);
      assert.equal(held.status, 'READY', 'a pickup deadline is pending');
      for (const [path, accept] of [
        [`/books/${book.id}`, undefined],
        ['/books?page=0&size=20', undefined],
        ['/books?page=0&size=20&q=Dune', undefined],
        ['/?page=0&size=20', HTML],
      ] as const) {
        const ran = (await statementsOf(path, accept)).statements;
        assert.equal(ran.length, 1, `GET ${path} ran:\n${ran.join('\n')}`);
      }
    });

    test('once the clock reaches a pickup deadline, the next read expires the reservation first', async () => {
      const book = await createBook(api, admin, { copies: 1 });
      const held = await reserve(api, admin, book.id);
      assert.equal((await statementsOf(`/books/${book.id}`)).body.available, 0);
      service.clock.advance(3 * DAY_MS);
      const read = await api.get(`/books/${book.id}`, { session: reader });
      assert.equal(read.body.available, 1, 'the copy held until the deadline is free again');
      const reservation = await api.get(`/books/${book.id}/reservations/${held.id}`, { session: admin });
      assert.equal(reservation.body.status, 'EXPIRED');
    });
  });
}

statementsSuite('pglite', false);
statementsSuite('postgres', postgresSkip());
