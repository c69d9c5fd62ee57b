import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  decodeRateLimitRequest,
  encodeRateLimitResponse,
  JsonRequestError,
} from '../src/server/json-codec.js';
import type { RateLimitResponse } from '../src/service/messages.js';

test('/json decoding: both field spellings, null as unset, integer strings, enum numbers', () => {
  assert.deepEqual(
    decodeRateLimitRequest(
      '{"domain":"d","hits_addend":"7","descriptors":[{"entries":[{"key":"a"}],"hits_addend":0},' +
        '{"entries":[],"hitsAddend":"3","limit":{"requests_per_unit":"5","unit":"MINUTE"}}]}',
    ),
    {
      domain: 'd',
      descriptors: [
        { entries: [{ key: 'a', value: '' }], hitsAddend: { value: 0 } },
        { entries: [], limit: { requestsPerUnit: 5, unit: 'MINUTE' }, hitsAddend: { value: 3 } },
      ],
      hitsAddend: 7,
    },
  );
  assert.deepEqual(
    decodeRateLimitRequest(
      '{"domain":"d","descriptors":[{"entries":[{"key":"a","value":null}],"limit":{"requestsPerUnit":5,"unit":3}}]}',
    ),
    {
      domain: 'd',
      descriptors: [{ entries: [{ key: 'a', value: '' }], limit: { requestsPerUnit: 5, unit: 'HOUR' } }],
      hitsAddend: 0,
    },
  );
  // An unknown enum number is kept as a number; the service rejects it with its own message.
  assert.deepEqual(decodeRateLimitRequest('{"descriptors":[{"limit":{"unit":9}}]}').descriptors, [
    { entries: [], limit: { requestsPerUnit: 0, unit: 9 } },
  ]);
  assert.deepEqual(decodeRateLimitRequest('{"domain":null,"descriptors":null,"hitsAddend":null}'), {
    domain: '',
    descriptors: [],
    hitsAddend: 0,
  });
});

test('/json decoding errors name the field; names are checked before values, descriptors before domain', () => {
  const cases: Array<[string, string]> = [
    ['{"domain":"basic","bogus":1}', 'unknown field "bogus" in body'],
    [
      '{"descriptors":[{"entries":[{"key":"a","value":"b","x":1}]}]}',
      'unknown field "x" in descriptors[0].entries[0]',
    ],
    ['{"descriptors":[{"limit":{"unit":"DAY","extra":1}}]}', 'unknown field "extra" in descriptors[0].limit'],
    ['{"__proto__":{"domain":"x"}}', 'unknown field "__proto__" in body'],
    ['{"hitsAddend":null,"hits_addend":2}', 'duplicate field "hits_addend" in body'],
    [
      '{"descriptors":[{"hitsAddend":1,"hits_addend":null}]}',
      'duplicate field "hits_addend" in descriptors[0]',
    ],
    [
      '{"descriptors":[{"limit":{"requestsPerUnit":1,"requests_per_unit":1}}]}',
      'duplicate field "requests_per_unit" in descriptors[0].limit',
    ],
    ['[1,2]', 'body must be a JSON object'],
    ['{"domain":5}', 'domain must be a string'],
    ['{"domain":"x","hitsAddend":1.5}', 'hitsAddend must be an unsigned integer up to 4294967295'],
    ['{"hitsAddend":"1e3"}', 'hitsAddend must be an unsigned integer up to 4294967295'],
    ['{"descriptors":{}}', 'descriptors must be a JSON array'],
    ['{"descriptors":[5]}', 'descriptors[0] must be a JSON object'],
    ['{"descriptors":[{"entries":[[]]}]}', 'descriptors[0].entries[0] must be a JSON object'],
    [
      '{"descriptors":[{"entries":[{"key":"a","value":true}]}]}',
      'descriptors[0].entries[0].value must be a string',
    ],
    [
      '{"descriptors":[{"limit":{"unit":"UNKNOWN","requestsPerUnit":-2}}]}',
      'descriptors[0].limit.requestsPerUnit must be an unsigned integer up to 4294967295',
    ],
    [
      '{"descriptors":[{"limit":{"unit":"FORTNIGHT"}}]}',
      'descriptors[0].limit.unit must be a RateLimitUnit name or number',
    ],
    [
      '{"descriptors":[{"entries":[{"key":"a"}],"bogus":1}],"domain":7}',
      'unknown field "bogus" in descriptors[0]',
    ],
    [
      '{"domain":7,"descriptors":[{"entries":[{"key":1}]}]}',
      'descriptors[0].entries[0].key must be a string',
    ],
  ];
  for (const [body, message] of cases) {
    assert.throws(() => decodeRateLimitRequest(body), new JsonRequestError(message), body);
  }
  assert.throws(
    () => decodeRateLimitRequest(''),
    (error) => error instanceof JsonRequestError && error.message.startsWith('invalid JSON: '),
  );
});

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
