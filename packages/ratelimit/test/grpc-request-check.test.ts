import assert from 'node:assert/strict';
import { test } from 'node:test';
import { loadProtos } from '../src/protocol/proto.js';
import { checkRequestBytes } from '../src/server/grpc-request-check.js';

const method = (
  loadProtos().rateLimitService.service as unknown as Record<
    string,
    { requestSerialize: (value: unknown) => Buffer }
  >
).ShouldRateLimit as { requestSerialize: (value: unknown) => Buffer };

const encode = (domain: string, values: string[]) =>
  method.requestSerialize({
    domain,
    descriptors: values.map((value) => ({ entries: [{ key: 'k', value }], hitsAddend: { value: 2 } })),
    hitsAddend: 1,
  });

test('well-formed requests pass, with non-ASCII text, other fields and unknown fields', () => {
  const bytes = encode('dömain', ['é', '中文', 'plain']);
  assert.equal(checkRequestBytes(bytes, 3), undefined);
  const unknownField = Buffer.concat([bytes, Buffer.from([0xf8, 0x01, 0x05])]);
  assert.equal(checkRequestBytes(unknownField, 3), undefined);
});

test('invalid UTF-8 is found in the domain and in descriptor values', () => {
  const domain = Buffer.from(encode('dX', ['v']));
  domain[3] = 0xff;
  assert.deepEqual(checkRequestBytes(domain, 10), { kind: 'invalid-utf8', field: 'domain' });
  // A lead byte with nothing after it inside the string.
  const value = Buffer.from(encode('d', ['aX', 'b']));
  value[value.indexOf('aX') + 1] = 0xc3;
  assert.deepEqual(checkRequestBytes(value, 10), { kind: 'invalid-utf8', field: 'descriptor entry value' });
});

test('the descriptor count stops at the first one past the bound', () => {
  const values = Array.from({ length: 50_000 }, (_, i) => `v${i}`);
  const bytes = encode('d', values);
  assert.deepEqual(checkRequestBytes(bytes, 1000), { kind: 'too-many-descriptors' });
  assert.equal(checkRequestBytes(bytes, 50_000), undefined);
});

test('malformed bytes are left to the decoder', () => {
  assert.equal(checkRequestBytes(Buffer.from([0x12, 0x7f, 0x01]), 10), undefined);
  assert.equal(checkRequestBytes(Buffer.from([0x0b]), 10), undefined);
  assert.equal(checkRequestBytes(Buffer.from([0x80, 0x80]), 10), undefined);
});
