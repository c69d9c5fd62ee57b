import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { MAX_JSON_BODY_BYTES } from '../src/server/http.js';
import { request, ruleCounters, startTestServer, type TestServer } from './helpers/server.js';

const BASIC = `domain: basic
descriptors:
  - {key: key1, rate_limit: {unit: second, requests_per_unit: 50}}
  - {key: one_per_minute, rate_limit: {unit: minute, requests_per_unit: 1}}
  - {key: unlimited, rate_limit: {unlimited: true}}
`;

const body = (domain: string, key: string, value: string, extra = '') =>
  `{"domain":"${domain}","descriptors":[{"entries":[{"key":"${key}","value":"${value}"}]}]${extra}}`;

/** Writes raw bytes to a port and resolves once the server has closed or answered. */
function sendGarbage(port: number, bytes: Buffer): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(bytes));
    socket.on('error', () => resolve());
    socket.on('close', () => resolve());
    socket.resume();
  });
}

describe('POST /json (Appendix A)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ 'basic.yaml': BASIC });
  });
  after(() => t.stop());

  test('an OK answer is proto3 JSON with durationUntilReset', async () => {
    const response = await t.json(body('basic', 'key1', 'foo'));
    assert.equal(response.status, 200);
    assert.equal(response.contentType, 'application/json');
    assert.deepEqual(JSON.parse(response.body), {
      overallCode: 'OK',
      statuses: [
        {
          code: 'OK',
          currentLimit: { requestsPerUnit: 50, unit: 'SECOND' },
          limitRemaining: 49,
          durationUntilReset: '1s',
        },
      ],
    });
  });

  test('limitRemaining 0 is omitted, and over limit is 429', async () => {
    const first = JSON.parse((await t.json(body('basic', 'one_per_minute', 'x'))).body);
    assert.equal(first.statuses[0].limitRemaining, undefined);
    const second = await t.json(body('basic', 'one_per_minute', 'x'));
    assert.equal(second.status, 429);
    const parsed = JSON.parse(second.body);
    assert.equal(parsed.overallCode, 'OVER_LIMIT');
    assert.deepEqual(parsed.statuses[0].currentLimit, { requestsPerUnit: 1, unit: 'MINUTE' });
    assert.match(parsed.statuses[0].durationUntilReset, /^([1-9]|[1-5][0-9]|60)s$/);
  });

  test('an unknown domain is 200 with bare OK statuses', async () => {
    const response = await t.json(body('nope', 'a', 'b'));
    assert.equal(response.status, 200);
    assert.deepEqual(JSON.parse(response.body), { overallCode: 'OK', statuses: [{ code: 'OK' }] });
  });

  test('an unlimited rule reports the maximum remaining', async () => {
    const response = await t.json(body('basic', 'unlimited', 'x'));
    assert.deepEqual(JSON.parse(response.body).statuses, [{ code: 'OK', limitRemaining: 4_294_967_295 }]);
  });

  test('per-descriptor hitsAddend "0" overrides the request hitsAddend: check only', async () => {
    const before = ruleCounters(t.server, 'basic.key1').total_hits;
    const response = await t.json(
      '{"domain":"basic","hitsAddend":5,"descriptors":[{"entries":[{"key":"key1","value":"z"}],"hitsAddend":"0"}]}',
    );
    assert.equal(JSON.parse(response.body).statuses[0].limitRemaining, 50);
    assert.equal(ruleCounters(t.server, 'basic.key1').total_hits, before);
  });

  test('hits_addend and hitsAddend are both accepted; strings are accepted for integers', async () => {
    const snake = await t.json(
      '{"domain":"basic","hits_addend":3,"descriptors":[{"entries":[{"key":"key1","value":"s"}]}]}',
    );
    assert.equal(JSON.parse(snake.body).statuses[0].limitRemaining, 47);
    const camel = await t.json(
      '{"domain":"basic","hitsAddend":"2","descriptors":[{"entries":[{"key":"key1","value":"c"}]}]}',
    );
    assert.equal(JSON.parse(camel.body).statuses[0].limitRemaining, 48);
    const perDescriptor = await t.json(
      '{"domain":"basic","descriptors":[{"entries":[{"key":"key1","value":"d"}],"hits_addend":4}]}',
    );
    assert.equal(JSON.parse(perDescriptor.body).statuses[0].limitRemaining, 46);
  });

  test('any method is accepted on /json', async () => {
    const response = await t.json(body('basic', 'key1', 'put'), 'PUT');
    assert.equal(response.status, 200);
  });

  const badBodies: Array<[string, string]> = [
    ['empty domain', body('', 'key1', 'x')],
    ['empty descriptor list', '{"domain":"basic","descriptors":[]}'],
    ['no descriptors', '{"domain":"basic"}'],
    ['unknown field', '{"domain":"basic","bogus":1}'],
    [
      'unknown nested field',
      '{"domain":"basic","descriptors":[{"entries":[{"key":"a","value":"b","x":1}]}]}',
    ],
    ['empty body', ''],
    ['a lone brace', '}'],
    ['not an object', '[1,2]'],
    ['wrong type', '{"domain":5,"descriptors":[]}'],
    ['negative hitsAddend', '{"domain":"basic","hitsAddend":-1,"descriptors":[{"entries":[{"key":"a"}]}]}'],
    [
      'both spellings',
      '{"domain":"basic","hitsAddend":1,"hits_addend":2,"descriptors":[{"entries":[{"key":"a"}]}]}',
    ],
    ['descriptors not a list', '{"domain":"basic","descriptors":{}}'],
    [
      'bad override unit',
      '{"domain":"basic","descriptors":[{"entries":[{"key":"a"}],"limit":{"unit":"FORTNIGHT"}}]}',
    ],
    ['invalid UTF-8 JSON', '{"domain":"\u0000'],
  ];
  for (const [name, text] of badBodies) {
    test(`400 Bad Request for ${name}`, async () => {
      const response = await t.json(text);
      assert.equal(response.status, 400);
      assert.equal(response.body, 'Bad Request\n');
      assert.equal(response.contentType, 'text/plain; charset=utf-8');
    });
  }

  test('an override with unit UNKNOWN is a service error: 400', async () => {
    const response = await t.json(
      '{"domain":"basic","descriptors":[{"entries":[{"key":"a"}],"limit":{"requestsPerUnit":1}}]}',
    );
    assert.equal(response.status, 400);
  });

  test('/healthcheck answers OK to any method; unknown paths are 404', async () => {
    const health = await t.get('http', '/healthcheck');
    assert.deepEqual(health, { status: 200, body: 'OK' });
    const post = await fetch(`http://127.0.0.1:${t.server.ports.http}/healthcheck`, { method: 'POST' });
    assert.equal(post.status, 200);
    assert.deepEqual(await t.get('http', '/nope'), { status: 404, body: '404 page not found\n' });
  });

  test('random bytes on the HTTP and gRPC ports do not stop the server', async () => {
    for (let i = 0; i < 5; i++) {
      await sendGarbage(t.server.ports.http, randomBytes(512));
      await sendGarbage(t.server.ports.grpc, randomBytes(512));
    }
    await sendGarbage(
      t.server.ports.grpc,
      Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\u0000\u0000\u0004garbage'),
    );
    await sendGarbage(
      t.server.ports.http,
      Buffer.from('POST /json HTTP/1.1\r\nContent-Length: 99999\r\n\r\n{'),
    );
    assert.equal((await t.json(body('basic', 'key1', 'after-garbage'))).status, 200);
    const grpc = await t.client.shouldRateLimit(request('basic', ['key1=after-garbage']));
    assert.equal(grpc.overallCode, 'OK');
  });

  test('answers written together at the end of a turn each reach their own request', async () => {
    // Distinct values and addends: answer i can only be request i's (limit 50 per second).
    const answers = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        t.json(body('basic', 'key1', `batch-${i}`, `,"hitsAddend":${i + 1}`)),
      ),
    );
    answers.forEach((answer, i) => {
      assert.equal(answer.status, 200);
      assert.equal(JSON.parse(answer.body).statuses[0].limitRemaining, 50 - (i + 1), `request ${i}`);
    });
  });

  test('a body over 4 MiB is 400 Bad Request and the server keeps serving', async () => {
    // A valid request but for its size: under the limit it would be answered 200.
    const oversized = body('basic', 'key1', 'a'.repeat(MAX_JSON_BODY_BYTES));
    const response = await t.json(oversized).catch(() => 'connection reset' as const);
    // The server answers 400 and drops the connection as soon as the limit is passed; the client
    // may still be sending, so it sees either the 400 or a reset.
    assert.ok(response === 'connection reset' || response.status === 400, `got ${JSON.stringify(response)}`);
    assert.equal((await t.json(body('basic', 'key1', 'after-oversized'))).status, 200);
  });

  test('pipelined requests on one connection get their answers in order', async () => {
    const bodies = [1, 2, 3].map((addend) => body('basic', 'key1', 'pipelined', `,"hitsAddend":${addend}`));
    const raw = bodies
      .map((text) => `POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: ${text.length}\r\n\r\n${text}`)
      .join('');
    const received = await new Promise<string>((resolve, reject) => {
      let text = '';
      const socket = connect(t.server.ports.http, '127.0.0.1', () => socket.write(raw));
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
        if ((text.match(/"overallCode"/g) ?? []).length === 3) {
          socket.destroy();
          resolve(text);
        }
      });
      socket.on('error', reject);
    });
    const remaining = [...received.matchAll(/"limitRemaining":(\d+)/g)].map((match) => Number(match[1]));
    // 50 per second: after 1, then 1 + 2, then 1 + 2 + 3 hits.
    assert.deepEqual(remaining, [49, 47, 44]);
  });

  test('clients that hang up before their answer is written do not stop the server', async () => {
    const rawRequest = (i: number) =>
      Buffer.from(
        `POST /json HTTP/1.1\r\nHost: x\r\nContent-Length: ${body('basic', 'key1', `gone-${i}`).length}\r\n\r\n` +
          body('basic', 'key1', `gone-${i}`),
      );
    await Promise.all(
      Array.from(
        { length: 30 },
        (_, i) =>
          new Promise<void>((resolve) => {
            const socket = connect(t.server.ports.http, '127.0.0.1', () => {
              socket.write(rawRequest(i));
              socket.destroy();
            });
            socket.on('close', () => resolve());
          }),
      ),
    );
    assert.equal((await t.json(body('basic', 'key1', 'after-hang-ups'))).status, 200);
  });
});

describe("a descriptor hitsAddend past the counters' exact range (2^53 - 1)", () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ 'basic.yaml': BASIC });
  });
  after(() => t.stop());

  const addend = (value: string) =>
    `{"domain":"basic","descriptors":[{"entries":[{"key":"key1","value":"big"}],"hitsAddend":${value}}]}`;

  test('/json: up to 2^53 - 1 is counted exactly; above it is refused with 400, nothing counted', async () => {
    for (const value of ['18446744073709551615', '"18446744073709551615"', '9007199254740992']) {
      assert.equal((await t.json(addend(value))).status, 400, value);
    }
    assert.equal(ruleCounters(t.server, 'basic.key1').total_hits, 0);
    const counted = await t.json(addend('9007199254740991'));
    assert.equal(counted.status, 429);
    assert.equal(ruleCounters(t.server, 'basic.key1').total_hits, 9007199254740991);
  });

  test('gRPC: above 2^53 - 1 is a service error that names the bound', async () => {
    await assert.rejects(
      t.client.shouldRateLimit({
        domain: 'basic',
        descriptors: [{ entries: [{ key: 'key1', value: 'grpc' }], hitsAddend: { value: 2 ** 64 - 1 } }],
      }),
      (error: { code: number; details: string }) => {
        assert.equal(error.code, 2);
        assert.match(error.details, /hits_addend .* is above 9007199254740991/);
        return true;
      },
    );
  });
});

describe('gRPC service errors (status UNKNOWN with the reference messages)', () => {
  let t: TestServer;
  before(async () => {
    t = await startTestServer({ 'basic.yaml': BASIC });
  });
  after(() => t.stop());

  const rejectsWith = (promise: Promise<unknown>, message: string) =>
    assert.rejects(promise, (error: { code: number; details: string }) => {
      assert.equal(error.code, 2);
      assert.equal(error.details, message);
      return true;
    });

  test('empty domain and empty descriptor list', async () => {
    await rejectsWith(
      t.client.shouldRateLimit(request('', ['key1=a'])),
      'rate limit domain must not be empty',
    );
    await rejectsWith(
      t.client.shouldRateLimit({ domain: 'basic', descriptors: [] }),
      'rate limit descriptor list must not be empty',
    );
    const counters = t.server.stats.snapshot().counters;
    assert.equal(counters.get('ratelimit.service.call.should_rate_limit.service_error'), 2);
  });

  test('health Check: "" and "ratelimit" serve, an unknown service is NOT_FOUND', async () => {
    assert.equal((await t.client.check('')).status, 'SERVING');
    assert.equal((await t.client.check('ratelimit')).status, 'SERVING');
    await assert.rejects(t.client.check('other'), (error: { code: number }) => error.code === 5);
    const counters = t.server.stats.snapshot().counters;
    assert.ok((counters.get('ratelimit_server.Check.total_requests') ?? 0) >= 3);
  });
});
