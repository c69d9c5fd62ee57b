// `npx tsx bench/profile.ts [by-id|list] [PGlite|PostgreSQL]` (in packages/books; PostgreSQL needs
// DATABASE_URL): where the service's CPU goes for one request. Starts the development identity
// provider and one service process on 10,000 seeded books, signs in, warms up, then profiles a window
// of autocannon load with V8's CPU profiler (the one `node --cpu-prof` runs, started after the warm-up)
// and prints the CPU time per request and the top items of self time: by origin (package, Node
// library, our source file, GC) and by function. The profile is left in the system's temp directory
// for Chrome DevTools or speedscope.
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '@platform/testkit';
import { startDevIdentityProvider } from '../dev/identity-provider.js';
import { runLoad } from './load.js';
import { type CpuProfile, functionOf, originOf, summarise } from './profile-summary.js';
import { benchSchema } from './schema.js';
import { startBenchServer } from './servers/spawn.js';
import { firstBookId, login } from './session.js';
import { benchCount } from './settings.js';

const [request = 'by-id', database = process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'] =
  process.argv.slice(2);
if (request !== 'by-id' && request !== 'list') throw new Error(`unknown request '${request}': by-id or list`);
const connections = benchCount(process.env, 'BENCH_CONNECTIONS', 50);
const durationSeconds = benchCount(process.env, 'BENCH_DURATION', 10);
const warmupSeconds = benchCount(process.env, 'BENCH_WARMUP', 5);
const top = 12;

const file = join(mkdtempSync(join(tmpdir(), 'books-profile-')), `${request}-${database}.cpuprofile`);
const port = await freePort();
const idp = await startDevIdentityProvider({
  host: '127.0.0.1',
  port: 0,
  clientBaseUrls: [`http://127.0.0.1:${port}`],
});
const schema = database === 'PostgreSQL' ? await benchSchema(process.env.DATABASE_URL ?? '') : undefined;
try {
  const service = await startBenchServer('service', {
    ...(schema?.env ?? {}),
    SESSION_SECRET: 'profile-secret-profile-secret-profile-secret',
    OIDC_PROVIDERS: 'dev',
    OIDC_DEV_ISSUER: idp.issuer,
    PORT: String(port),
    RATE_LIMIT_PER_MINUTE: '1000000000',
    BENCH_PROFILE_FILE: file,
  });
  try {
    const app = `http://127.0.0.1:${port}`;
    const { cookie } = await login(app);
    const path = request === 'list' ? '/books?page=0&size=20' : `/books/${await firstBookId(app, cookie)}`;
    const load = { url: `${app}${path}`, headers: { cookie, accept: 'application/json' }, connections };
    await runLoad({ ...load, durationSeconds: warmupSeconds });
    process.kill(service.pid, 'SIGUSR2');
    const cpuBefore = service.cpuMicros() ?? 0;
    const result = await runLoad({ ...load, durationSeconds });
    const cpu = (service.cpuMicros() ?? 0) - cpuBefore;
    process.kill(service.pid, 'SIGUSR2');
    while (!existsSync(file)) await sleep(100);
    await sleep(500);
    const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
    const table = (title: string, shares: { item: string; share: number }[]) =>
      [
        `| ${title} | share of busy CPU |`,
        '|---|---:|',
        ...shares.slice(0, top).map(({ item, share }) => `| ${item} | ${(share * 100).toFixed(1)} % |`),
      ].join('\n');
    console.log(
      `GET ${path} on ${database}, ${connections} connections, ${durationSeconds} s after ${warmupSeconds} s of warm-up:`,
    );
    console.log(
      `${result.requestsPerSecond.toFixed(0)} req/s, p99 ${result.latencyP99Ms} ms, server CPU ${(cpu / result.requests).toFixed(0)} µs/req, ${result.failures} failures\n`,
    );
    // The socket writes (writev: the kernel's loopback path, which also wakes the client) swing with the
    // machine's load; their share is given alone, and the tables are of the rest.
    const writes = summarise(profile).find(({ item }) => item === 'writev')?.share ?? 0;
    console.log(
      `socket writes (writev): ${(writes * 100).toFixed(1)} % of busy CPU; the tables below leave them out\n`,
    );
    console.log(table('origin (self time)', summarise(profile, originOf, ['writev'])));
    console.log();
    console.log(table('function (self time)', summarise(profile, functionOf, ['writev'])));
    console.log(`\nprofile: ${file}`);
  } finally {
    await service.stop();
  }
} finally {
  await idp.close();
  await schema?.cleanup();
}
