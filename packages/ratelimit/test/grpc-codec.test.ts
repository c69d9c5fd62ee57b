import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { MethodDefinition } from '@grpc/grpc-js';
import type { DescriptorStatus, RateLimitResponse } from '../src/protocol/messages.js';
import { loadProtos } from '../src/protocol/proto.js';
import { encodeRateLimitResponseProto } from '../src/server/grpc-codec.js';

const method = loadProtos().rateLimitService.service.ShouldRateLimit as MethodDefinition<unknown, unknown>;
const protobufjs = (response: RateLimitResponse) => method.responseSerialize(response);

const counted = (overrides: Partial<DescriptorStatus> = {}): DescriptorStatus => ({
  code: 'OK',
  currentLimit: { name: '', requestsPerUnit: 1_000_000_000, unit: 'SECOND' },
  limitRemaining: 999_999_999,
  durationUntilReset: { seconds: 1, nanos: 0 },
  ...overrides,
});

const response = (
  statuses: DescriptorStatus[],
  extra: Partial<RateLimitResponse> = {},
): RateLimitResponse => ({
  overallCode: 'OK',
  statuses,
  responseHeadersToAdd: [],
  dynamicMetadata: null,
  ...extra,
});

test('the response encoder writes the same bytes as proto-loader/protobufjs', () => {
  const cases: Array<[string, RateLimitResponse]> = [
    ['one counted status', response([counted()])],
    [
      'over limit, a named rule, remaining 0, a long window',
      response(
        [
          counted({
            code: 'OVER_LIMIT',
            currentLimit: { name: 'per-user ünïcode ✓', requestsPerUnit: 4_294_967_295, unit: 'YEAR' },
            limitRemaining: 0,
            durationUntilReset: { seconds: 31_536_000, nanos: 0 },
          }),
        ],
        { overallCode: 'OVER_LIMIT' },
      ),
    ],
    [
      'no limit, unlimited and counted statuses together',
      response([
        { code: 'OK', currentLimit: null, limitRemaining: 0, durationUntilReset: null },
        { code: 'OK', currentLimit: null, limitRemaining: 4_294_967_295, durationUntilReset: null },
        counted({ currentLimit: { name: 'n', requestsPerUnit: 5, unit: 'WEEK' }, limitRemaining: 3 }),
        counted({ currentLimit: { name: '', requestsPerUnit: 0, unit: 'MINUTE' } }),
      ]),
    ],
    [
      'response headers',
      response([counted()], {
        responseHeadersToAdd: [
          { key: 'RateLimit-Limit', value: '1000000000' },
          { key: 'RateLimit-Remaining', value: '' },
          { key: '', value: 'x'.repeat(300) },
        ],
      }),
    ],
    ['no statuses', response([])],
  ];
  for (const [name, value] of cases) {
    assert.deepEqual(encodeRateLimitResponseProto(value), protobufjs(value), name);
  }
});
