import { freePort } from '@platform/testkit';
import { startDevIdentityProvider } from '../dev/identity-provider.js';
import { runLoad } from './load.js';
import { startBenchServer } from './servers/spawn.js';
import { firstBookId, login } from './session.js';

const ports = [await freePort(), await freePort()];
const idp = await startDevIdentityProvider({
  host: '127.0.0.1',
  port: 0,
  clientBaseUrls: ports.map((p) => `http://127.0.0.1:${p}`),
});
const variants = await Promise.all(
  ['main', 'worker'].map(async (thread, i) => {
    const server = await startBenchServer('service', {
      BENCH_PGLITE_THREAD: thread,
      SESSION_SECRET: 'x'.repeat(40),
      OIDC_PROVIDERS: 'dev',
      OIDC_DEV_ISSUER: idp.issuer,
      PORT: String(ports[i]),
      RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    const app = `http://127.0.0.1:${ports[i]}`;
    const { cookie } = await login(app);
    return { thread, server, app, cookie, id: await firstBookId(app, cookie) };
  }),
);
for (const v of variants)
  for (const p of ['/books?page=0&size=20', `/books/${v.id}`])
    await runLoad({
      url: v.app + p,
      headers: { cookie: v.cookie, accept: 'application/json' },
      connections: 50,
      durationSeconds: 4,
    });
for (let round = 0; round < 3; round++) {
  for (const v of round % 2 ? [...variants].reverse() : variants) {
    for (const [name, p] of [
      ['list', '/books?page=0&size=20'],
      ['by-id', `/books/${v.id}`],
    ]) {
      const before = v.server.cpuMicros() ?? 0;
      const r = await runLoad({
        url: v.app + p,
        headers: { cookie: v.cookie, accept: 'application/json' },
        connections: 50,
        durationSeconds: 4,
      });
      console.log(
        `round ${round} ${v.thread} ${name}: ${r.requestsPerSecond.toFixed(0)} req/s, p50 ${r.latencyP50Ms} p99 ${r.latencyP99Ms} ms, ${(((v.server.cpuMicros() ?? 0) - before) / r.requests).toFixed(0)} µs/req, fail ${r.failures}`,
      );
    }
  }
}
for (const v of variants) await v.server.stop();
await idp.close();
