// The rate limit server on the memory store (settings from the environment, as bin/ratelimit),
// with the store answering every hit through a promise, as the network stores do: the bench row
// that shows what the synchronous decision path (`CounterStore.hitNow`) buys a request.
// Usage: node dist/bench/servers/ratelimit-promised.js
import { MemoryStore } from '../../src/backends/memory.js';
import type { CounterStore } from '../../src/backends/store.js';
import { systemClock } from '../../src/limiter/clock.js';
import { silentLogger } from '../../src/log.js';
import { startServer } from '../../src/main.js';
import { readSettings } from '../../src/settings.js';

const memory = new MemoryStore({
  stats: { inc: () => {} },
  log: silentLogger,
  now: systemClock,
  random: (max) => Math.floor(Math.random() * max),
});
// The same store without `hitNow`: the limiter then takes its promise path.
const store: CounterStore = {
  kind: memory.kind,
  hit: (hits, options) => memory.hit(hits, options),
  isHealthy: () => memory.isHealthy(),
  onHealthChange: () => memory.onHealthChange(),
  close: () => memory.close(),
};
const running = await startServer(readSettings(), { store });
process.once('SIGTERM', () => {
  void running.close().then(() => process.exit(0));
});
