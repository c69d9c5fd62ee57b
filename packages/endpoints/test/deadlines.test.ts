import assert from 'node:assert/strict';
import { type TestContext, test } from 'node:test';
import { Deadlines } from '../src/deadlines.js';

/** A clock the test moves together with Node's mocked setTimeout. */
function clock(t: TestContext) {
  t.mock.timers.enable({ apis: ['setTimeout'] });
  let now = 1000;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
      t.mock.timers.tick(ms);
    },
  };
}

test('one timer expires each unsettled deadline when its time comes, and none that settled', (t) => {
  const time = clock(t);
  const deadlines = new Deadlines(100, time.now);
  const expired: string[] = [];
  const first = deadlines.start(() => expired.push('first'));
  deadlines.start(() => expired.push('second'));
  time.advance(40);
  deadlines.start(() => expired.push('third'));
  deadlines.settle(first);
  time.advance(59);
  assert.deepEqual(expired, []);
  time.advance(1);
  assert.deepEqual(expired, ['second']);
  // The timer fired for the first deadline's time; the third's is 40 ms later, not then.
  time.advance(39);
  assert.deepEqual(expired, ['second']);
  time.advance(1);
  assert.deepEqual(expired, ['second', 'third']);
});

test('a deadline started after the earlier ones settled keeps its own time', (t) => {
  const time = clock(t);
  const deadlines = new Deadlines(100, time.now);
  const expired: string[] = [];
  deadlines.settle(deadlines.start(() => expired.push('settled')));
  time.advance(50);
  deadlines.start(() => expired.push('late'));
  time.advance(50);
  assert.deepEqual(expired, []);
  time.advance(50);
  assert.deepEqual(expired, ['late']);
  time.advance(500);
  assert.deepEqual(expired, ['late']);
});

test('settling a deadline twice, or after it expired, leaves the pending ones in place', (t) => {
  const time = clock(t);
  const deadlines = new Deadlines(100, time.now);
  const expired: string[] = [];
  const first = deadlines.start(() => expired.push('first'));
  time.advance(10);
  const second = deadlines.start(() => expired.push('second'));
  time.advance(10);
  deadlines.start(() => expired.push('third'));
  deadlines.settle(second);
  deadlines.settle(second);
  time.advance(80);
  assert.deepEqual(expired, ['first']);
  deadlines.settle(first);
  time.advance(20);
  assert.deepEqual(expired, ['first', 'third']);
});

test('the timer holds the process only while a deadline no connection holds is pending', () => {
  const deadlines = new Deadlines(100_000);
  const heldTimers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const before = heldTimers();
  const onConnection = deadlines.start(() => {}, false);
  assert.equal(heldTimers(), before);
  const inProcess = deadlines.start(() => {});
  assert.equal(heldTimers(), before + 1);
  deadlines.settle(inProcess);
  assert.equal(heldTimers(), before);
  deadlines.settle(onConnection);
  assert.equal(heldTimers(), before);
});
