/**
 * The framework's own cost per request, without sockets: `app.handle` over the benchmark's
 * controllers with a minimal request and a response that discards what it is given. Used to profile
 * the hot path (`node --cpu-prof --import tsx bench/dispatch.ts`); the throughput comparison is
 * `npm run bench`. Usage: `tsx bench/dispatch.ts`; prints the best nanoseconds per request per route.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createApp } from '../src/index.js';

const CALLS_PER_BATCH = 1_000_000;
const BATCHES = 7;
/** Batches run before timing, so the measured ones see optimised code. */
const WARMUP_BATCHES = 2;

const app = await createApp({ controllerPrefix: fileURLToPath(new URL('controllers', import.meta.url)) });
const discard = {
  headersSent: false,
  writeHead() {
    return this;
  },
  setHeader() {
    return this;
  },
  end() {
    return this;
  },
} as unknown as ServerResponse;

for (const url of ['/', '/users/42/posts/7']) {
  const request = {
    method: 'GET',
    url,
    rawHeaders: ['Host', '127.0.0.1'],
    headers: { host: '127.0.0.1' },
  } as unknown as IncomingMessage;
  let best = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < WARMUP_BATCHES + BATCHES; batch += 1) {
    const started = process.hrtime.bigint();
    for (let call = 0; call < CALLS_PER_BATCH; call += 1) app.handle(request, discard);
    const nanos = Number(process.hrtime.bigint() - started) / CALLS_PER_BATCH;
    if (batch >= WARMUP_BATCHES) best = Math.min(best, nanos);
  }
  process.stdout.write(`${url}: ${best.toFixed(0)} ns per request (best of ${BATCHES} batches)\n`);
}
