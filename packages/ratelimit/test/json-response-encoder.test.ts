import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { RateLimitResponse } from '../src/protocol/messages.js';
import { encodeRateLimitResponse } from '../src/server/json-response-encoder.js';

test('/json encoding: enum names, "Ns" durations, default values left out', () => {
  assert.equal(
    encodeRateLimitResponse({
      overallCode: 'OVER_LIMIT',
      statuses: [
        {
          code: 'OVER_LIMIT',
          currentLimit: { name: 'per "user"', requestsPerUnit: 5, unit: 'MINUTE' },
          limitRemaining: 0,
          durationUntilReset: { seconds: 42, nanos: 0 },
        },
        { code: 'OK', currentLimit: null, limitRemaining: 3, durationUntilReset: null },
      ],
      responseHeadersToAdd: [{ key: 'x-ratelimit-limit', value: '5' }],
      dynamicMetadata: null,
    }).text,
    '{"overallCode":"OVER_LIMIT","statuses":[{"code":"OVER_LIMIT","currentLimit":{"name":"per \\"user\\"",' +
      '"requestsPerUnit":5,"unit":"MINUTE"},"durationUntilReset":"42s"},{"code":"OK","limitRemaining":3}],' +
      '"responseHeadersToAdd":[{"key":"x-ratelimit-limit","value":"5"}]}',
  );
});

test('/json encoding: the byte length counts multi-byte names, headers and metadata', () => {
  const cases: RateLimitResponse[] = [
    { overallCode: 'OK', statuses: [], responseHeadersToAdd: [], dynamicMetadata: null },
    {
      overallCode: 'OK',
      statuses: [
        {
          code: 'OK',
          currentLimit: { name: 'per-user ünïcode ✓ 😀', requestsPerUnit: 5, unit: 'MINUTE' },
          limitRemaining: 4,
          durationUntilReset: { seconds: 7, nanos: 0 },
        },
      ],
      responseHeadersToAdd: [
        { key: 'x-grüße', value: '' },
        { key: '', value: 'naïve ✓' },
      ],
      dynamicMetadata: { descriptors: [{ entries: [{ key: 'straße', value: '東京' }] }] },
    },
  ];
  for (const response of cases) {
    const encoded = encodeRateLimitResponse(response);
    assert.equal(encoded.bytes, Buffer.byteLength(encoded.text));
    assert.deepEqual(JSON.parse(encoded.text).overallCode, 'OK');
  }
});
