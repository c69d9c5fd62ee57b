// MEMORY_MAX_BYTES counts what the memory store holds resident (memory.ts: SLOT_BYTES, STATE_BYTES,
// the lookup table and the key arena). This keeps the constants honest: a child process fills a
// store and measures what its counters really cost the process, which must not be more than the
// store accounts for them.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { runCommand } from '@platform/testkit';

const probe = fileURLToPath(new URL('./helpers/measure-memory-cost.ts', import.meta.url));
/** Pages are touched whole and the allocator keeps a little: the measurement's own slack. */
const MEASUREMENT_SLACK = 1.03;

interface Measured {
  kind: string;
  counters: number;
  keyLength: number;
  rssPerCounter: number;
  heapPerCounter: number;
  accountedPerCounter: number;
}

async function measure(kind: string): Promise<Measured> {
  // The young generation held at 1 MB, so the collector's sizing of it is not in the figures.
  const result = await runCommand(process.execPath, [
    '--expose-gc',
    '--min-semi-space-size=1',
    '--max-semi-space-size=1',
    '--import',
    'tsx',
    probe,
    kind,
    '500000',
  ]);
  assert.equal(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as Measured;
}

for (const kind of ['fixed', 'sliding', 'bucket']) {
  test(`a ${kind} counter costs the process no more than the store accounts for it`, {
    timeout: 60_000,
  }, async (t) => {
    const measured = await measure(kind);
    t.diagnostic(JSON.stringify(measured));
    // Nothing of a counter lives on the JavaScript heap: its key, count and state are in typed arrays.
    assert.ok(Math.abs(measured.heapPerCounter) < 2, `heap ${measured.heapPerCounter} bytes a counter`);
    assert.ok(
      measured.rssPerCounter <= measured.accountedPerCounter * MEASUREMENT_SLACK,
      `RSS ${measured.rssPerCounter.toFixed(1)} bytes a counter, accounted ${measured.accountedPerCounter.toFixed(1)}`,
    );
  });
}
