// The bench scripts' BENCH_* counts: a bad value stops the run with the setting's name.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { benchCount } from '../bench/settings.js';

test('BENCH_* counts: unset or empty gives the default, a positive integer is taken', () => {
  assert.equal(benchCount({}, 'BENCH_ROUNDS', 3), 3);
  assert.equal(benchCount({ BENCH_ROUNDS: ' ' }, 'BENCH_ROUNDS', 3), 3);
  assert.equal(benchCount({ BENCH_ROUNDS: '5' }, 'BENCH_ROUNDS', 3), 5);
});

test('BENCH_* counts: zero, negative, fractional or non-numeric values are refused by name', () => {
  for (const bad of ['0', '-2', '1.5', 'three', '1e400']) {
    assert.throws(
      () => benchCount({ BENCH_ROUNDS: bad }, 'BENCH_ROUNDS', 3),
      new Error(`BENCH_ROUNDS must be a positive integer, got '${bad}'`),
    );
  }
});
