// The h2 transport against the gRPC protocol spec (grpc/grpc PROTOCOL-HTTP2.md) and grpc-go's
// answers, with raw node:http2 client frames where a library client cannot misbehave.
import assert from 'node:assert/strict';
import type { ClientHttp2Session } from 'node:http2';
import { after, before, describe, test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { Client, credentials } from '@grpc/grpc-js';
import type { CounterStore } from '../../src/backends/store.js';
import { StoreError } from '../../src/errors.js';
import { metadataFromHeaders } from '../../src/server/h2/metadata.js';
import { percentEncode } from '../../src/server/h2/status.js';
import { counter, startTestServer, type TestServer } from '../helpers/server.js';
import { connectPlain, decodeResponse, RLS_PATH, rawRequest, requestBytes, rlsFrame } from './raw-client.js';

const CONFIG = {
  'd.yaml':
    'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 1000 }\n',
};
const OK = 0;
const UNKNOWN = 2;
const DEADLINE_EXCEEDED = 4;
const RESOURCE_EXHAUSTED = 8;
const UNIMPLEMENTED = 12;
const INTERNAL = 13;

/**
 * Fault injection: calls whose value is `slow` wait until released, `fail` fails with a message
 * that needs percent-encoding; others answer at once.
 */
function scriptedStore(): CounterStore & { release(): void; slowCalls: number } {
  let waiting: Array<() => void> = [];
  return {
    kind: 'memory',
    slowCalls: 0,
    hit(hits) {
      const key = hits[0]?.key ?? '';
      if (key.includes('_slow_')) {
        this.slowCalls++;
        return new Promise((resolve) => waiting.push(() => resolve(hits.map(() => 1))));
      }
      if (key.includes('_fail_')) return Promise.reject(new StoreError('store down: 100% – é\nnext line'));
      return Promise.resolve(hits.map(() => 1));
    },
    release() {
      for (const resolve of waiting) resolve();
      waiting = [];
    },
    isHealthy: () => true,
    onHealthChange: () => {},
    close: () => Promise.resolve(),
  };
}

describe('h2 transport conformance (PROTOCOL-HTTP2.md)', () => {
  let server: TestServer;
  let session: ClientHttp2Session;
  const store = scriptedStore();
  before(async () => {
    server = await startTestServer(CONFIG, { GRPC_TRANSPORT: 'h2' }, { overrides: { store } });
    session = connectPlain(server.server.ports.grpc);
  });
  after(async () => {
    store.release();
    session.close();
    await server.stop();
  });

  test('a call: HEADERS (200, application/grpc), one length-prefixed message, trailers with grpc-status 0', async () => {
    const answer = await rawRequest(session, {}, [rlsFrame()]);
    assert.equal(answer.headers[':status'], 200);
    assert.equal(answer.headers['content-type'], 'application/grpc');
    assert.equal(answer.headers['grpc-status'], undefined, 'the status is in the trailers');
    assert.equal(answer.trailers?.['grpc-status'], '0');
    assert.equal(answer.body[0], 0, 'uncompressed');
    assert.equal(answer.body.readUInt32BE(1), answer.body.length - 5);
    assert.equal(decodeResponse(answer.body.subarray(5)).overallCode, 'OK');
  });

  test('a message split across many DATA frames, and a prefix split in two, are read whole', async () => {
    const whole = rlsFrame();
    const byteByByte = [...whole].map((byte) => Buffer.from([byte]));
    assert.equal((await rawRequest(session, {}, byteByByte)).status, OK);
    assert.equal((await rawRequest(session, {}, [whole.subarray(0, 2), whole.subarray(2)])).status, OK);
  });

  test('two messages in one DATA frame on a unary method are refused, not half-answered', async () => {
    const answer = await rawRequest(session, {}, [Buffer.concat([rlsFrame(), rlsFrame()])]);
    assert.notEqual(answer.status, OK);
    assert.equal(answer.body.length, 0);
  });

  test('no message at all is INTERNAL', async () => {
    assert.equal((await rawRequest(session, {}, [])).status, INTERNAL);
  });

  test('grpc-encoding gzip: a compressed message is read', async () => {
    const message = gzipSync(requestBytes('d', 'k', 'gz'));
    const prefix = Buffer.from([1, 0, 0, 0, 0]);
    prefix.writeUInt32BE(message.length, 1);
    const answer = await rawRequest(session, { 'grpc-encoding': 'gzip' }, [Buffer.concat([prefix, message])]);
    assert.equal(answer.status, OK);
    assert.equal(decodeResponse(answer.body.subarray(5)).overallCode, 'OK');
  });

  test('grpc-js with gzip as its default compression: its compressed calls are answered', async () => {
    const client = new Client(`127.0.0.1:${server.server.ports.grpc}`, credentials.createInsecure(), {
      'grpc.default_compression_algorithm': 2,
    });
    try {
      const reply = await new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(
          RLS_PATH,
          (value: Buffer) => value,
          (bytes: Buffer) => bytes,
          requestBytes('d', 'k', 'grpc-js-gzip'),
          (error, value) => (error ? reject(error) : resolve(value as Buffer)),
        ),
      );
      assert.equal(decodeResponse(reply).overallCode, 'OK');
    } finally {
      client.close();
    }
  });

  test('an unsupported grpc-encoding is UNIMPLEMENTED with grpc-accept-encoding, trailers-only', async () => {
    const answer = await rawRequest(session, { 'grpc-encoding': 'snappy' }, [rlsFrame()]);
    assert.equal(answer.status, UNIMPLEMENTED);
    assert.equal(answer.trailers, undefined, 'trailers-only');
    assert.equal(answer.headers['grpc-accept-encoding'], 'identity,gzip');
    assert.match(answer.message, /snappy/);
  });

  test('a message over the 4 MiB limit is RESOURCE_EXHAUSTED as soon as its prefix arrives', async () => {
    const prefix = Buffer.from([0, 0, 0, 0, 0]);
    prefix.writeUInt32BE(4 * 1024 * 1024 + 1, 1);
    // The body never comes: the answer must not wait for it.
    const answer = await rawRequest(session, {}, [prefix, Buffer.alloc(100)], { endStream: false });
    assert.equal(answer.status, RESOURCE_EXHAUSTED);
    assert.match(answer.message, /received message larger than max \(4194305 vs\. 4194304\)/);
  });

  test('a truncated message is INTERNAL', async () => {
    assert.equal((await rawRequest(session, {}, [rlsFrame().subarray(0, 7)])).status, INTERNAL);
  });

  test('a wrong content-type is HTTP 415; a non-POST is HTTP 405', async () => {
    for (const contentType of ['application/json', 'text/plain', 'application/grpcx']) {
      const answer = await rawRequest(session, { 'content-type': contentType }, [rlsFrame()]);
      assert.equal(answer.headers[':status'], 415, contentType);
      assert.equal(answer.status, INTERNAL);
    }
    for (const contentType of ['application/grpc+proto', 'application/grpc;charset=utf-8']) {
      assert.equal((await rawRequest(session, { 'content-type': contentType }, [rlsFrame()])).status, OK);
    }
    const get = await rawRequest(session, { ':method': 'GET' }, []);
    assert.equal(get.headers[':status'], 405);
    assert.equal(get.status, INTERNAL);
  });

  test('an unknown service or method is UNIMPLEMENTED, trailers-only', async () => {
    const method = await rawRequest(
      session,
      { ':path': '/envoy.service.ratelimit.v3.RateLimitService/Nope' },
      [rlsFrame()],
    );
    assert.equal(method.status, UNIMPLEMENTED);
    assert.equal(method.trailers, undefined);
    assert.equal(
      method.message,
      'unknown method Nope for service envoy.service.ratelimit.v3.RateLimitService',
    );
    const service = await rawRequest(session, { ':path': '/no.Such/Method' }, [rlsFrame()]);
    assert.equal(service.status, UNIMPLEMENTED);
    assert.equal(service.message, 'unknown service no.Such');
  });

  test('errors are trailers-only with grpc-message percent-encoded (UTF-8, %, control characters)', async () => {
    const answer = await rawRequest(session, {}, [rlsFrame('d', 'k', 'fail')]);
    assert.equal(answer.status, UNKNOWN);
    assert.equal(answer.trailers, undefined, 'trailers-only');
    assert.equal(answer.body.length, 0);
    assert.equal(answer.headers['grpc-message'], 'store down: 100%25 %E2%80%93 %C3%A9%0Anext line');
    assert.equal(answer.message, 'store down: 100% – é\nnext line');
  });

  test('grpc-timeout: an expired deadline ends the call with DEADLINE_EXCEEDED, in every unit', async () => {
    const callsBefore = counter(server.server, 'ratelimit_server.ShouldRateLimit.total_requests');
    for (const timeout of ['50m', '50000u', '50000000n']) {
      const started = Date.now();
      const answer = await rawRequest(session, { 'grpc-timeout': timeout }, [rlsFrame('d', 'k', 'slow')]);
      assert.equal(answer.status, DEADLINE_EXCEEDED, timeout);
      assert.ok(Date.now() - started < 2000, `${timeout}: ended after ${Date.now() - started} ms`);
    }
    // A deadline far away does not end a call that answers.
    for (const timeout of ['1H', '1M', '10S', '99999999H']) {
      assert.equal(
        (await rawRequest(session, { 'grpc-timeout': timeout }, [rlsFrame()])).status,
        OK,
        timeout,
      );
    }
    assert.equal(counter(server.server, 'ratelimit_server.ShouldRateLimit.total_requests') - callsBefore, 7);
    const malformed = await rawRequest(session, { 'grpc-timeout': '10 seconds' }, [rlsFrame()]);
    assert.equal(malformed.status, INTERNAL);
    // The expired calls' late answers go nowhere and break nothing.
    store.release();
    assert.equal((await rawRequest(session, {}, [rlsFrame()])).status, OK);
  });

  test('a client that resets its stream mid-call leaves the server serving', async () => {
    const stream = session.request({
      ':method': 'POST',
      ':path': RLS_PATH,
      'content-type': 'application/grpc',
    });
    stream.on('error', () => {});
    stream.write(rlsFrame().subarray(0, 3));
    stream.close(8);
    assert.equal((await rawRequest(session, {}, [rlsFrame()])).status, OK);
  });
});

test('percent-encoding leaves printable ASCII but % alone, and encodes UTF-8 byte by byte', () => {
  assert.equal(percentEncode('plain text (ok) ~!'), 'plain text (ok) ~!');
  assert.equal(percentEncode('50%'), '50%25');
  assert.equal(percentEncode('tab\there'), 'tab%09here');
  assert.equal(percentEncode('日本'), '%E6%97%A5%E6%9C%AC');
  assert.equal(decodeURIComponent(percentEncode('ünïcødé % \r\n')), 'ünïcødé % \r\n');
});

test('metadata: custom headers reach the call, -bin values are decoded, protocol headers are left out', () => {
  const metadata = metadataFromHeaders({
    ':path': RLS_PATH,
    ':method': 'POST',
    'content-type': 'application/grpc',
    te: 'trailers',
    'grpc-timeout': '1S',
    'grpc-encoding': 'gzip',
    traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
    'x-envoy-original-path': '/a',
    'trace-bin': `${Buffer.from([0, 1, 2]).toString('base64')},${Buffer.from('x').toString('base64')}`,
  });
  assert.deepEqual(Object.keys(metadata.getMap()).sort(), [
    'trace-bin',
    'traceparent',
    'x-envoy-original-path',
  ]);
  assert.deepEqual(metadata.get('traceparent'), ['00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']);
  assert.deepEqual(metadata.get('trace-bin'), [Buffer.from([0, 1, 2]), Buffer.from('x')]);
});
