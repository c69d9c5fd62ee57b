import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, test } from 'node:test';
import type { Database } from '../src/db/database.js';
import { ApiClient } from './support/client.js';
import { openTestDatabase, startTestService, type TestService } from './support/service.js';
import { createTestSession } from './support/test-sessions.js';

const logLines: Record<string, unknown>[] = [];
const logStream = new Writable({
  write(chunk, _encoding, done) {
    for (const line of chunk.toString().split('\n')) if (line.trim()) logLines.push(JSON.parse(line));
    done();
  },
});

let service: TestService;
let failBooks = false;

before(async () => {
  const database = await openTestDatabase('pglite');
  // Fault injection: the books table "fails" on demand, to reach the 500 path.
  const faulty: Database = {
    ...database.db,
    query: async (sql, params) => {
      if (failBooks && sql.includes('from books')) throw new Error('disk on fire at /var/lib/secret.c:42');
      return database.db.query(sql, params);
    },
  };
  service = await startTestService('pglite', {
    database: { db: faulty, dispose: database.dispose },
    logger: { level: 'debug', stream: logStream },
  });
});
after(() => service?.close());

test('every request is logged at debug level with its request id, which the response echoes', async () => {
  const session = await createTestSession(service);
  const response = await new ApiClient(service.url).get('/books', { session });
  const requestId = response.headers.get('x-request-id');
  assert.match(requestId ?? '', /^[0-9a-f-]{36}$/);
  const lines = logLines.filter((line) => line.reqId === requestId);
  const DEBUG = 20;
  assert.ok(lines.some((line) => line.msg === 'incoming request' && line.level === DEBUG));
  assert.ok(lines.some((line) => line.msg === 'request completed' && line.level === DEBUG));
});

test('an unexpected failure is a 500 problem without internals; the log has the details', async () => {
  const session = await createTestSession(service);
  failBooks = true;
  try {
    const response = await new ApiClient(service.url).get('/books', { session });
    assert.equal(response.status, 500);
    assert.equal(response.body.code, 'INTERNAL_ERROR');
    const requestId = response.headers.get('x-request-id');
    assert.equal(response.body.requestId, requestId);
    assert.doesNotMatch(JSON.stringify(response.body), /disk on fire|secret\.c|stack|at /);
    const logged = logLines.find((line) => line.reqId === requestId && line.level === 50);
    assert.ok(logged, 'the error is logged under the request id');
    assert.match(JSON.stringify(logged), /disk on fire/);
  } finally {
    failBooks = false;
  }
});

test('a caller-supplied X-Request-Id is ignored unless TRUST_PROXY is on', async () => {
  const session = await createTestSession(service);
  const response = await new ApiClient(service.url).get('/me', {
    session,
    headers: { 'x-request-id': 'forged' },
  });
  assert.notEqual(response.headers.get('x-request-id'), 'forged');
});
