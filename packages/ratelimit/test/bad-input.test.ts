import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Client, credentials, type ServiceError, status } from '@grpc/grpc-js';
import { counter, request, startTestServer, type TestServer } from './helpers/server.js';

const CONFIG = {
  'd.yaml': 'domain: d\ndescriptors:\n  - key: k\n    rate_limit: { unit: minute, requests_per_unit: 1 }\n',
};

/** Length-delimited protobuf field `field` holding `payload`. */
function field(number: number, payload: Buffer): Buffer {
  const length: number[] = [];
  let n = payload.length;
  while (n >= 0x80) {
    length.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  length.push(n);
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...length]), payload]);
}

/** A serialized RateLimitRequest for domain `d` with one descriptor `k` = the raw bytes `value`. */
function rawRequest(value: Buffer, key = Buffer.from('k')): Buffer {
  const entry = Buffer.concat([field(1, key), field(2, value)]);
  return Buffer.concat([field(1, Buffer.from('d')), field(2, field(1, entry))]);
}

/** Calls ShouldRateLimit with bytes as they are, the way a client without a UTF-8 check sends them. */
function callRaw(client: Client, bytes: Buffer): Promise<{ error: ServiceError | null }> {
  return new Promise((resolve) => {
    client.makeUnaryRequest(
      '/envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit',
      (value: Buffer) => value,
      (reply: Buffer) => reply,
      bytes,
      (error) => resolve({ error }),
    );
  });
}

describe('bad input', () => {
  let server: TestServer;
  let raw: Client;
  before(async () => {
    server = await startTestServer(CONFIG, { MAX_DESCRIPTORS_PER_REQUEST: '100' });
    raw = new Client(`127.0.0.1:${server.server.ports.grpc}`, credentials.createInsecure());
  });
  after(async () => {
    raw.close();
    await server.stop();
  });

  test('gRPC: descriptor values and keys that are not valid UTF-8 are INVALID_ARGUMENT', async () => {
    for (const [bytes, name] of [
      [rawRequest(Buffer.from([0xff])), 'descriptor entry value'],
      [rawRequest(Buffer.from([0x61, 0xfe])), 'descriptor entry value'],
      [rawRequest(Buffer.from('v'), Buffer.from([0xc3])), 'descriptor entry key'],
    ] as const) {
      const { error } = await callRaw(raw, bytes);
      assert.equal(error?.code, status.INVALID_ARGUMENT, name);
      assert.equal(error?.details, `rate limit request: ${name} is not valid UTF-8`);
    }
    // Valid non-ASCII values count as before: two calls, the second over the limit of 1.
    assert.equal((await callRaw(raw, rawRequest(Buffer.from('é')))).error, null);
    const second = await server.client.shouldRateLimit(request('d', ['k=é']));
    assert.equal(second.overallCode, 'OVER_LIMIT');
  });

  test('/json: a body that is not valid UTF-8 is 400', async () => {
    const url = `http://127.0.0.1:${server.server.ports.http}/json`;
    for (const bad of [0xff, 0xfe]) {
      const body = Buffer.concat([
        Buffer.from('{"domain":"d","descriptors":[{"entries":[{"key":"k","value":"'),
        Buffer.from([bad]),
        Buffer.from('"}]}]}'),
      ]);
      const response = await fetch(url, { method: 'POST', body });
      assert.equal(response.status, 400);
      assert.equal(await response.text(), 'Bad Request\n');
    }
  });

  test('more descriptors than MAX_DESCRIPTORS_PER_REQUEST are refused with a clear error', async () => {
    const many = Array.from({ length: 101 }, (_, i) => [`k=v${i}`]);
    await assert.rejects(server.client.shouldRateLimit(request('d', ...many)), (error: ServiceError) => {
      assert.equal(error.code, status.UNKNOWN);
      assert.equal(
        error.details,
        'rate limit descriptor list has more than MAX_DESCRIPTORS_PER_REQUEST (100) descriptors',
      );
      return true;
    });
    const json = await server.json(
      JSON.stringify({
        domain: 'd',
        descriptors: many.map(([pair]) => ({ entries: [{ key: 'k', value: pair }] })),
      }),
    );
    assert.equal(json.status, 400);
    const hundred = await server.client.shouldRateLimit(request('d', ...many.slice(1)));
    assert.equal((hundred.statuses as unknown[]).length, 100);
    assert.equal(counter(server.server, 'ratelimit.service.call.should_rate_limit.service_error'), 2);
  });
});
