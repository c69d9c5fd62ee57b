// An early answer (401, 403, 413, 415, and 431 or 400 from Node's HTTP parser) must reach a client that
// is still sending: the service half-closes and drains the rest within bounds (LINGERING_CLOSE_TIME,
// LINGERING_CLOSE_BYTES) instead of closing a socket with unread bytes, which makes the kernel reset the
// connection and the client drop the answer it had not read yet.
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Writable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import { CSRF_COOKIE, CSRF_HEADER } from '../src/auth/cookies.js';
import { ApiClient } from './support/client.js';
import { createBook } from './support/fixtures-api.js';
import { startTestService, type TestService } from './support/service.js';
import { createTestSession, type TestSession } from './support/test-sessions.js';

const RUNS = 20;
/** What a client still sends after the service ended its side, before it stops (see rawClient). */
const IN_FLIGHT = 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 'x');
/** Header lines without end, for a client whose request head never ends (Node's parser refuses it: 431). */
const HEADER_LINES = Buffer.from(`X-Fill: ${'f'.repeat(1014)}\r\n`.repeat(64));
/** A header past Node's 16 KiB limit of the request line and headers. */
const OVERSIZED_HEADER = { 'x-padding': 'p'.repeat(20_000) };
const FRAMINGS = ['Content-Length: 1000000000\r\n', 'Transfer-Encoding: chunked\r\n'];

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

/** One kind of early answer: the request that gets it, and the status. */
interface EarlyAnswer {
  name: string;
  path: string;
  headers: Record<string, string>;
  status: number;
}

/** The headers of a JSON POST, signed in as `session` when there is one. */
function postHeaders(
  session: TestSession | undefined,
  extra: Record<string, string> = {},
): Record<string, string> {
  const signedIn: Record<string, string> =
    session === undefined ? {} : { cookie: session.cookie, [CSRF_HEADER]: session.xsrf };
  return { 'content-type': 'application/json', accept: 'application/json', ...signedIn, ...extra };
}

/** The request head of a POST whose body (with the given framing) is sent after it. */
function postHead(path: string, headers: Record<string, string>, framing: string): string {
  const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`);
  // A chunked body of one chunk as long as the client keeps writing.
  const firstChunk = framing.startsWith('Transfer') ? '40000000\r\n' : '';
  return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${lines.join('')}${framing}\r\n${firstChunk}`;
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

function connectTo(url: string): Socket {
  // Half-open allowed: the service's end of its side does not end ours; the client decides when to stop.
  return connect({ port: Number(new URL(url).port), host: '127.0.0.1', allowHalfOpen: true });
}

/**
 * A raw client that writes `head`, then `filler` over and over as fast as the socket takes it, and reads
 * at the same time. When the service ends its side (after its answer), the client still writes
 * `bytesAfterEnd` more (what a client has in flight before it notices: its buffers, the write under way),
 * then stops and ends its side too, as a client should. With Infinity it never stops: only the service's
 * bounds end the connection.
 */
function rawClient(
  url: string,
  head: string,
  bytesAfterEnd: number,
  filler: Buffer = CHUNK,
): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connectTo(url);
    let received = '';
    let serviceEnded = false;
    let afterEnd = 0;
    let failure: string | undefined;
    const pump = () => {
      while (socket.writable) {
        if (serviceEnded) afterEnd += filler.length;
        if (afterEnd > bytesAfterEnd) {
          socket.end();
          return;
        }
        if (!socket.write(filler)) return;
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

/** The whole answer with `status` and `Connection: close`, then an orderly close (no reset). */
function assertAnsweredAndClosed(outcome: RawOutcome, status: number, label: string): void {
  assert.equal(outcome.answer?.status, status, `${label}: ${JSON.stringify(outcome)}`);
  assert.match(outcome.answer?.head ?? '', /\r\nconnection: close/i, label);
  assert.equal(outcome.ending, 'close', `${label}: the connection was reset, not closed`);
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

/** undici's fetch, `runs` times in a row, each time with a fresh body; fails on the first lost answer. */
async function fetchEveryTime(
  url: string,
  { name, path, headers, status }: EarlyAnswer,
  body: () => RequestInit['body'],
  check: (response: Response) => Promise<void>,
): Promise<void> {
  for (let run = 0; run < RUNS; run++) {
    const init = { method: 'POST', headers, body: body(), duplex: 'half' } as RequestInit;
    const response = await fetch(`${url}${path}`, init).catch((error: Error) =>
      assert.fail(`${name}, run ${run + 1}: no answer (${String(error.cause ?? error)})`),
    );
    assert.equal(response.status, status, `${name}, run ${run + 1}`);
    await check(response);
  }
}

describe('early answers reach a client that is still sending (default bounds)', () => {
  let service: TestService;
  let answers: EarlyAnswer[];
  before(async () => {
    service = await startTestService('pglite');
    const admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
    const user = await createTestSession(service);
    const bookId = (await createBook(new ApiClient(service.url), admin)).id;
    // A CSRF token but no session: the guard's 401, before the body.
    const token = randomBytes(32).toString('base64url');
    const anonymous = { cookie: `${CSRF_COOKIE}=${token}`, [CSRF_HEADER]: token };
    answers = [
      { name: 'POST /books as an admin', path: '/books', headers: postHeaders(admin), status: 413 },
      {
        name: 'POST /books/{id}/reservations as a user',
        path: `/books/${bookId}/reservations`,
        headers: postHeaders(user),
        status: 413,
      },
      {
        name: 'POST /books without a session',
        path: '/books',
        headers: postHeaders(undefined, anonymous),
        status: 401,
      },
      {
        name: 'POST /books as a user (not an admin)',
        path: '/books',
        headers: postHeaders(user),
        status: 403,
      },
      {
        name: 'POST /books without a CSRF token',
        path: '/books',
        headers: postHeaders(undefined),
        status: 403,
      },
      {
        name: 'POST /books in another media type',
        path: '/books',
        headers: postHeaders(admin, { 'content-type': 'text/plain' }),
        status: 415,
      },
      {
        name: 'POST /books with headers over 16 KiB (refused by the HTTP parser)',
        path: '/books',
        headers: postHeaders(admin, OVERSIZED_HEADER),
        status: 431,
      },
    ];
  });
  after(() => service?.close());

  test(`undici fetch with a 10 MB body: the answer every time, ${RUNS} times in a row`, async () => {
    const body = Buffer.alloc(10 * 1024 * 1024, 'x');
    for (const answer of answers) {
      await fetchEveryTime(
        service.url,
        answer,
        () => body,
        async (response) => {
          assert.equal(response.headers.get('connection'), 'close', answer.name);
          assert.equal(((await response.json()) as { status: number }).status, answer.status);
        },
      );
    }
  });

  test(`undici fetch streaming an endless body: the answer every time, ${RUNS} times in a row`, async () => {
    for (const answer of answers) {
      await fetchEveryTime(service.url, answer, endlessBody, async (response) => {
        await response.arrayBuffer();
      });
    }
  });

  test(`a raw socket writing as fast as it can gets the whole answer and an orderly close, ${RUNS} times`, async () => {
    for (const { name, path, headers, status } of answers) {
      for (const framing of FRAMINGS) {
        for (let run = 0; run < RUNS; run++) {
          const outcome = await rawClient(service.url, postHead(path, headers, framing), IN_FLIGHT);
          assertAnsweredAndClosed(outcome, status, `${name}, ${framing.trim()}, run ${run + 1}`);
        }
      }
    }
  });

  test(`a request head that never ends is 431 and an orderly close, ${RUNS} times`, async () => {
    for (let run = 0; run < RUNS; run++) {
      const outcome = await rawClient(service.url, 'POST /books HTTP/1.1\r\n', IN_FLIGHT, HEADER_LINES);
      assertAnsweredAndClosed(outcome, 431, `run ${run + 1}`);
    }
  });

  test(`a malformed request with its body still coming is 400 and an orderly close, ${RUNS} times`, async () => {
    // A header line without a colon: Node's parser refuses the request before fastify sees it.
    const head =
      'POST /books HTTP/1.1\r\nHost: 127.0.0.1\r\nno colon here\r\nContent-Length: 1000000000\r\n\r\n';
    for (let run = 0; run < RUNS; run++) {
      assertAnsweredAndClosed(await rawClient(service.url, head, IN_FLIGHT), 400, `run ${run + 1}`);
    }
  });
});

describe('the drain bounds hold against a client that never stops', () => {
  const BOUND_BYTES = 1024 * 1024;
  const BODY_HEAD = 'Content-Length: 1000000000\r\n';

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
    /** The endings logged while `run` ran. */
    const endingsOf = async (run: () => Promise<void>) => {
      const first = endings.length;
      await run();
      return endings.slice(first);
    };
    return { service, admin, endingsOf };
  }

  describe('LINGERING_CLOSE_BYTES: a client writing as fast as it can is cut off after that many bytes', () => {
    let bounded: Awaited<ReturnType<typeof boundedService>>;
    // The time bound is out of reach: only the byte bound can end these.
    before(async () => {
      bounded = await boundedService({
        LINGERING_CLOSE_BYTES: String(BOUND_BYTES),
        LINGERING_CLOSE_TIME: '1h',
      });
    });
    after(() => bounded?.service.close());

    const cutOffAtTheByteBound = async (head: string, filler: Buffer, status: number) => {
      let outcome: RawOutcome | undefined;
      const endings = await bounded.endingsOf(async () => {
        outcome = await rawClient(bounded.service.url, head, Number.POSITIVE_INFINITY, filler);
      });
      assert.equal(outcome?.answer?.status, status, JSON.stringify(outcome));
      assert.notEqual(outcome?.ending, 'close', 'the service cut it off (a reset)');
      assert.deepEqual(
        endings.map(({ ending }) => ending),
        ['byte bound'],
      );
      const drained = endings[0]?.drainedBytes ?? 0;
      assert.ok(drained > BOUND_BYTES && drained <= BOUND_BYTES + filler.length * 2, String(drained));
    };

    test('after an answer of the app (413)', async () => {
      await cutOffAtTheByteBound(postHead('/books', postHeaders(bounded.admin), BODY_HEAD), CHUNK, 413);
    });

    test('after an answer of the HTTP parser (431)', async () => {
      await cutOffAtTheByteBound('POST /books HTTP/1.1\r\n', HEADER_LINES, 431);
    });
  });

  describe('LINGERING_CLOSE_TIME: a client trickling forever is cut off after that long', () => {
    let bounded: Awaited<ReturnType<typeof boundedService>>;
    before(async () => {
      bounded = await boundedService({ LINGERING_CLOSE_TIME: '300ms' });
    });
    after(() => bounded?.service.close());

    const cutOffAtTheTimeBound = async (head: string, trickle: string, status: number) => {
      const socket = connectTo(bounded.service.url);
      let received = '';
      socket.on('data', (data: Buffer) => {
        received += data.toString('latin1');
      });
      const endings = await bounded.endingsOf(async () => {
        const ended = new Promise<void>((resolve) => {
          socket.on('close', () => resolve());
          socket.on('error', () => resolve());
        });
        socket.write(head);
        // A line now and then, never near the byte bound: only the time bound can end this.
        const trickling = setInterval(() => socket.writable && socket.write(trickle), 20);
        await ended;
        clearInterval(trickling);
      });
      socket.destroy();
      assert.equal(parseAnswer(received)?.status, status);
      assert.deepEqual(
        endings.map(({ ending }) => ending),
        ['time bound'],
      );
      assert.ok((endings[0]?.drainedBytes ?? Infinity) < 32 * 1024 * 1024);
    };

    test('after an answer of the app (413)', async () => {
      await cutOffAtTheTimeBound(postHead('/books', postHeaders(bounded.admin), BODY_HEAD), 'x', 413);
    });

    test('after an answer of the HTTP parser (431)', async () => {
      const overflowing = `POST /books HTTP/1.1\r\n${HEADER_LINES.toString('latin1')}`;
      await cutOffAtTheTimeBound(overflowing, 'X-More: y\r\n', 431);
    });
  });
});
