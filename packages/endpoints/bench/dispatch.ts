/**
 * The framework's own cost per request, without sockets: the Node interface (`app.handle`) over the
 * benchmark's controllers and routes, with minimal requests and a response that discards what it
 * is given. Used to weigh changes to the hot path (`node --cpu-prof --import tsx bench/dispatch.ts`
 * profiles it); the comparison with other frameworks is `npm run bench`. Usage:
 * `npm run build && npx tsx bench/dispatch.ts [path…]` (it measures the built package); prints the
 * lowest CPU nanoseconds per request of a few batches, per route (CPU time, not wall time, so
 * neighbours on a shared machine disturb it less).
 */
import { EventEmitter } from 'node:events';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import { createApp } from '@platform/endpoints';
import { ROUTES } from './measure.js';
import { routeLabel } from './report.js';

const CALLS_PER_BATCH = 200_000;
const BATCHES = 7;
/** Batches run before timing, so the measured ones see optimised code. */
const WARMUP_BATCHES = 2;

const app = await createApp({ controllerPrefix: fileURLToPath(new URL('controllers', import.meta.url)) });

let answered: (() => void) | undefined;
const discard = {
  headersSent: false,
  writeHead() {
    return this;
  },
  setHeader() {
    return this;
  },
  end() {
    answered?.();
    return this;
  },
} as unknown as ServerResponse;

/** A request with a body: an emitter that the Node interface reads like an IncomingMessage. */
function withBody(url: string, body: Buffer): IncomingMessage {
  const request = Object.assign(new EventEmitter(), {
    method: 'POST',
    url,
    rawHeaders: [
      'Host',
      '127.0.0.1',
      'Content-Type',
      'application/json',
      'Content-Length',
      String(body.length),
    ],
    headers: { host: '127.0.0.1', 'content-type': 'application/json', 'content-length': String(body.length) },
    readableEnded: false,
    complete: false,
    pause() {},
  });
  return request as unknown as IncomingMessage;
}

const cpuNanos = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) * 1000;
};

const only = process.argv.slice(2);
for (const route of ROUTES.filter((candidate) => only.length === 0 || only.includes(candidate.path))) {
  const body = route.json === undefined ? undefined : Buffer.from(JSON.stringify(route.json));
  let best = Number.POSITIVE_INFINITY;
  for (let batch = 0; batch < WARMUP_BATCHES + BATCHES; batch += 1) {
    const started = cpuNanos();
    for (let call = 0; call < CALLS_PER_BATCH; call += 1) {
      if (body === undefined) {
        const request = {
          method: 'GET',
          url: route.path,
          rawHeaders: ['Host', '127.0.0.1'],
          headers: { host: '127.0.0.1' },
        };
        app.handle(request as unknown as IncomingMessage, discard);
      } else {
        const request = withBody(route.path, body);
        const done = new Promise<void>((resolve) => {
          answered = resolve;
        });
        app.handle(request, discard);
        request.emit('data', body);
        request.emit('end');
        await done;
      }
    }
    const nanos = (cpuNanos() - started) / CALLS_PER_BATCH;
    if (batch >= WARMUP_BATCHES) best = Math.min(best, nanos);
  }
  process.stdout.write(
    `${routeLabel(route)}: ${best.toFixed(0)} ns of CPU per request (lowest of ${BATCHES} batches)\n`,
  );
}
