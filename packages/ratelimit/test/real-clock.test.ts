import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer } from './helpers/server.js';

// The service's own clock, not an injected one: this is the clock the other tests replace.
const CONFIG = `domain: api
descriptors:
  - key: burst
    rate_limit: {unit: second, requests_per_unit: 2, algorithm: token_bucket, burst: 5}
`;

const body = (addend: number) =>
  JSON.stringify({
    domain: 'api',
    descriptors: [{ entries: [{ key: 'burst', value: 'v' }], hitsAddend: addend }],
  });

/** Seconds of a proto3-JSON Duration (`"1.9s"`) in milliseconds. */
const durationMs = (text: string) => Math.round(Number(text.replace(/s$/, '')) * 1000);

test('the memory store refills a token bucket by the millisecond on the system clock (/json)', async () => {
  const t = await startTestServer({ 'api.yaml': CONFIG }, {}, { realClock: true });
  try {
    // A first call warms the path up (a check only), so the timed calls below are quick ones.
    assert.equal((await t.json(body(0))).status, 200);
    // The bucket is full again 2.5 s (5 tokens at 2 per second) after the first hit that drains it.
    const firstSent = Date.now();
    assert.equal((await t.json(body(1))).status, 200);
    const firstAnswered = Date.now();
    assert.equal((await t.json(body(4))).status, 200);
    for (const afterMs of [600, 1300]) {
      await sleep(Math.max(0, firstAnswered + afterMs - Date.now()));
      const checkSent = Date.now();
      const answer = await t.json(body(0));
      const checkAnswered = Date.now();
      assert.equal(answer.status, 200);
      const status = JSON.parse(answer.body).statuses[0];
      // The first hit and this check each happened somewhere between their send and their answer.
      const elapsedMin = checkSent - firstAnswered;
      const elapsedMax = checkAnswered - firstSent;
      const reset = durationMs(status.durationUntilReset);
      assert.ok(
        reset >= 2500 - elapsedMax - 1 && reset <= 2500 - elapsedMin + 1,
        `reset ${reset} ms after ${elapsedMin}-${elapsedMax} ms`,
      );
      const remaining = status.limitRemaining ?? 0;
      const tokensMin = Math.floor((2 * elapsedMin) / 1000);
      const tokensMax = Math.floor((2 * elapsedMax) / 1000);
      assert.ok(
        remaining >= tokensMin && remaining <= tokensMax,
        `${remaining} tokens after ${elapsedMin}-${elapsedMax} ms`,
      );
    }
  } finally {
    await t.stop();
  }
});
