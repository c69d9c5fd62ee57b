import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseUnit, windowStart } from '../src/limiter/window.js';

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
