import assert from 'node:assert/strict';
import { test } from 'node:test';
import { secondsUntilReset, windowStart } from '../src/limiter/window.js';
import { OVERRIDE_UNIT_NAMES, overrideUnit, parseUnit, unitNumber } from '../src/protocol/units.js';

test('windows are aligned to the Unix epoch', () => {
  assert.equal(windowStart(1234, 'MINUTE'), 1200);
  assert.equal(windowStart(1234, 'SECOND'), 1234);
  assert.equal(windowStart(86_399, 'DAY'), 0);
  // The epoch was a Thursday, so weeks start on Thursday 00:00 UTC.
  assert.equal(new Date(windowStart(Date.UTC(2026, 10, 22) / 1000, 'WEEK') * 1000).getUTCDay(), 4);
});

test('units parse case-insensitively and unknown units are rejected', () => {
  assert.equal(parseUnit('minute'), 'MINUTE');
  assert.equal(parseUnit('Year'), 'YEAR');
  assert.equal(parseUnit('fortnight'), undefined);
  assert.equal(parseUnit('constructor'), undefined);
});

test('the time until reset counts down to the end of the window', () => {
  assert.equal(secondsUntilReset(1234, 'MINUTE'), 26);
  assert.equal(secondsUntilReset(1200, 'MINUTE'), 60);
  assert.equal(secondsUntilReset(2, 'MINUTE'), 58);
});

test('one units table gives the proto enum numbers of both unit enums', () => {
  // RateLimitResponse.RateLimit.Unit and rls_conf.proto's RateLimitUnit: WEEK came last, as 7.
  assert.deepEqual(
    ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR', 'WEEK'].map(unitNumber),
    [0, 1, 2, 3, 4, 5, 6, 7],
  );
  assert.equal(unitNumber('FORTNIGHT'), undefined);
  // envoy.type.v3.RateLimitUnit, the unit of a request's override, has no WEEK.
  assert.deepEqual(OVERRIDE_UNIT_NAMES, ['UNKNOWN', 'SECOND', 'MINUTE', 'HOUR', 'DAY', 'MONTH', 'YEAR']);
  assert.equal(overrideUnit('WEEK'), undefined);
  assert.equal(overrideUnit('UNKNOWN'), undefined);
  assert.equal(overrideUnit('HOUR'), 'HOUR');
});
