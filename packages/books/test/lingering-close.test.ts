// An early answer (413, 403, 415, ...) must reach a client that is still sending its body: the service
// half-closes and drains the rest within bounds (LINGERING_CLOSE_TIME, LINGERING_CLOSE_BYTES) instead
// of closing a socket with unread bytes, which makes the kernel reset the connection and the client drop
// the answer it had not read yet.
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from './support/client.js';
import { createBook } from './support/fixtures-api.js';
import { startTestService, type TestService } from './support/service.js';
import { createTestSession, type TestSession } from './support/test-sessions.js';

const RUNS = 20;
/** What a client still sends after the service ended its side, before it stops (see rawClient). */
const IN_FLIGHT = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');

interface Answer {
  status: number;
  head: string;
}

interface RawOutcome {
  /** The whole answer (head and Content-Length body), when it arrived. */
  answer?: Answer;
  /** How the connection ended: 'close' is an orderly close; anything else is an error (a reset). */
  ending: string;
}

/** The request head of a POST whose body is sent after it. */
function postHead(
  path: string,
  session: TestSession | undefined,
  framing: string,
  contentType = 'application/json',
) {
  const cookie =
    session === undefined ? '' : `Cookie: ${session.cookie}\r\nX-XSRF-TOKEN: ${session.xsrf}\r\n`;
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nContent-Type: ${contentType}\r\n${cookie}${framing}\r\n`;
}

/** A complete HTTP/1.1 answer at the start of `data`, if it is all there. */
function parseAnswer(data: string): Answer | undefined {
  const headEnd = data.indexOf('\r\n\r\n');
  if (headEnd === -1) return undefined;
  const head = data.slice(0, headEnd);
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  if (Buffer.byteLength(data.slice(headEnd + 4)) < length) return undefined;
  return { status: Number(head.slice(9, 12)), head };
}

/**
 * A raw client that writes its body as fast as the socket takes it and reads at the same time. When the
 * service ends its side (after its answer), the client still writes `bytesAfterEnd` more (what a client
 * has in flight before it notices: its buffers, the write under way), then stops and ends its side too,
 * as a client should. With Infinity it never stops: only the service's bounds end the connection.
 */
function rawClient(url: string, head: string, bytesAfterEnd: number): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect({ port: Number(new URL(url).port), host: '127.0.0.1', allowHalfOpen: true });
    let received = '';
    let serviceEnded = false;
    let afterEnd = 0;
    let failure: string | undefined;
    const pump = () => {
      while (socket.writable) {
        if (serviceEnded) afterEnd += CHUNK.length;
        if (afterEnd > bytesAfterEnd) {
          socket.end();
          return;
        }
        if (!socket.write(CHUNK)) return;
      }
    };
    socket.on('connect', () => {
      socket.write(head);
      pump();
    });
    socket.on('drain', pump);
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
    });
    socket.on('end', () => {
      serviceEnded = true;
      pump();
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      failure = error.code ?? error.message;
    });
    socket.on('close', () => resolve({ answer: parseAnswer(received), ending: failure ?? 'close' }));
  });
}

/** A body that never ends on its own: chunks for as long as the reader pulls (cut off at 1 GiB). */
function endlessBody(): ReadableStream<Uint8Array> {
  let sent = 0;
  return new ReadableStream({
    pull(controller) {
      if (sent >= 2 ** 30) return controller.close();
      sent += CHUNK.length;
      controller.enqueue(new Uint8Array(CHUNK));
    },
  });
}

describe('early answers reach a client that is still sending (default bounds)', () => {
  let service: TestService;
  let admin: TestSession;
  let user: TestSession;
  let bookId: string;
  before(async () => {
    service = await startTestService('pglite');
    admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
    user = await createTestSession(service);
    bookId = (await createBook(new ApiClient(service.url), admin)).id;
  });
  after(() => service?.close());

  const cases = () => [
    { name: 'POST /books as an admin', path: '/books', session: admin, status: 413 },
    {
      name: 'POST /books/{id}/reservations as a user',
      path: `/books/${bookId}/reservations`,
      session: user,
      status: 413,
    },
    { name: 'POST /books as a user (not an admin)', path: '/books', session: user, status: 403 },
    { name: 'POST /books without a session', path: '/books', session: undefined, status: 403 },
  ];

  test(`undici fetch with a 10 MB body: the answer every time, ${RUNS} times in a row`, async () => {
    const body = Buffer.alloc(10 * 1024 * 1024, 'x');
    for (const { name, path, session, status } of cases()) {
      for (let run = 0; run < RUNS; run++) {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json',
        };
        if (session !== undefined)
          Object.assign(headers, { cookie: session.cookie, 'x-xsrf-token': session.xsrf });
        const response = await fetch(`${service.url}${path}`, { method: 'POST', headers, body }).catch(
          (error: Error) =>
            assert.fail(`${name}, run ${run + 1}: no answer (${String(error.cause ?? error)})`),
        );
        assert.equal(response.status, status, name);
        assert.equal(response.headers.get('connection'), 'close', name);
        assert.equal(((await response.json()) as { status: number }).status, status);
      }
    }
  });

  test(`undici fetch streaming an endless body: the answer every time, ${RUNS} times in a row`, async () => {
    for (const { name, path, session, status } of cases()) {
      for (let run = 0; run < RUNS; run++) {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json',
        };
        if (session !== undefined)
          Object.assign(headers, { cookie: session.cookie, 'x-xsrf-token': session.xsrf });
        const init = { method: 'POST', headers, body: endlessBody(), duplex: 'half' } as RequestInit;
        const response = await fetch(`${service.url}${path}`, init).catch((error: Error) =>
          assert.fail(`${name}, run ${run + 1}: no answer (${String(error.cause ?? error)})`),
        );
        assert.equal(response.status, status, name);
        await response.arrayBuffer();
      }
    }
  });

  test(`a raw socket writing as fast as it can gets the whole answer and an orderly close, ${RUNS} times`, async () => {
    const framings = ['Content-Length: 1000000000\r\n', 'Transfer-Encoding: chunked\r\n'];
    for (const { name, path, session, status } of cases()) {
      for (const framing of framings) {
        // A chunked body of one chunk as long as the client keeps writing.
        const head =
          postHead(path, session, framing) + (framing.startsWith('Transfer') ? '40000000\r\n' : '');
        for (let run = 0; run < RUNS; run++) {
          const outcome = await rawClient(service.url, head, IN_FLIGHT);
          const label = `${name}, ${framing.trim()}, run ${run + 1}`;
          assert.equal(outcome.answer?.status, status, `${label}: ${JSON.stringify(outcome)}`);
          assert.match(outcome.answer?.head ?? '', /\r\nconnection: close/i, label);
          assert.equal(outcome.ending, 'close', `${label}: the connection was reset, not closed`);
        }
      }
    }
  });

  test('415 for a body in another media type, while it is still being sent', async () => {
    for (let run = 0; run < RUNS; run++) {
      const head = postHead('/books', admin, 'Content-Length: 1000000000\r\n', 'text/plain');
      const outcome = await rawClient(service.url, head, IN_FLIGHT);
      assert.equal(outcome.answer?.status, 415, JSON.stringify(outcome));
      assert.equal(outcome.ending, 'close', 'the connection was reset, not closed');
    }
  });
});

/** A service with the given bounds whose debug log lines about lingering closes are collected. */
async function boundedService(env: NodeJS.ProcessEnv) {
  const endings: { drainedBytes: number; ending: string }[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (line.includes('early answer: connection closed')) endings.push(JSON.parse(line));
      }
      done();
    },
  });
  const service = await startTestService('pglite', { env, logger: { level: 'debug', stream: logStream } });
  const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
  return { service, admin, endings };
}

describe('the drain bounds hold against a client that never stops', () => {
  const BOUND_BYTES = 1024 * 1024;

  test('LINGERING_CLOSE_BYTES: a client writing as fast as it can is cut off after that many bytes', async () => {
    // The time bound is out of reach: only the byte bound can end this.
    const { service, admin, endings } = await boundedService({
      LINGERING_CLOSE_BYTES: String(BOUND_BYTES),
      LINGERING_CLOSE_TIME: '1h',
    });
    try {
      const head = postHead('/books', admin, 'Content-Length: 1000000000\r\n');
      const outcome = await rawClient(service.url, head, Number.POSITIVE_INFINITY);
      assert.equal(outcome.answer?.status, 413, JSON.stringify(outcome));
      assert.notEqual(outcome.ending, 'close', 'the service cut it off (a reset)');
      assert.deepEqual(
        endings.map(({ ending }) => ending),
        ['byte bound'],
      );
      const drained = endings[0]?.drainedBytes ?? 0;
      assert.ok(drained > BOUND_BYTES && drained <= BOUND_BYTES + CHUNK.length * 2, String(drained));
    } finally {
      await service.close();
    }
  });

  test('LINGERING_CLOSE_TIME: a client trickling its body forever is cut off after that long', async () => {
    const { service, admin, endings } = await boundedService({ LINGERING_CLOSE_TIME: '300ms' });
    // Half-open allowed: the service's end of its side does not end ours; the client keeps sending.
    const socket = connect({
      port: Number(new URL(service.url).port),
      host: '127.0.0.1',
      allowHalfOpen: true,
    });
    let received = '';
    const ended = new Promise<string>((resolve) => {
      socket.on('close', () => resolve('close'));
      socket.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
    });
    socket.on('data', (data: Buffer) => {
      received += data.toString('latin1');
    });
    socket.write(postHead('/books', admin, 'Content-Length: 1000000000\r\n'));
    // A byte now and then, never near the byte bound: only the time bound can end this.
    const trickle = setInterval(() => socket.writable && socket.write('x'), 20);
    try {
      await ended;
    } finally {
      clearInterval(trickle);
      socket.destroy();
      await service.close();
    }
    assert.equal(parseAnswer(received)?.status, 413);
    assert.deepEqual(
      endings.map(({ ending }) => ending),
      ['time bound'],
    );
    assert.ok((endings[0]?.drainedBytes ?? Infinity) < 32 * 1024 * 1024);
  });
});
