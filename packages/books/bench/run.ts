// `npm run bench -w packages/books`: the book service against a raw node:http baseline running the
// same SQL, on PGlite and (with DATABASE_URL) PostgreSQL, authenticated through a real login at the
// development identity provider. Bounded: 18 rows of 5 s, three rounds each, plus each server's settling,
// under 7 minutes in all; with DATABASE_URL also the notice delivery row (bench/delivery.ts). Writes bench/RESULTS.md.
// The load generator (autocannon) runs in this process, beside the servers on the same two cores, and
// every pause of this process's garbage collector is counted as the servers' latency: `npm run bench`
// runs it with `--max-semi-space-size=64`, so the young generation is collected less often. The servers
// are separate processes with Node's defaults, as in production.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { freePort } from '@platform/testkit';
import { startDevIdentityProvider } from '../dev/identity-provider.js';
import { DELIVERY_HEADER, type DeliveryMeasurement, deliveryRow, measureDelivery } from './delivery.js';
import { type LoadOptions, loadCommand, runLoad } from './load.js';
import {
  type Measurement,
  machineLine,
  OTHER_THREAD,
  RAW,
  RAW_SESSION,
  resultsTable,
  SEARCH_REQUEST,
  SERVICE,
  targetsChecklist,
} from './report.js';
import { benchSchema } from './schema.js';
import { type BenchServer, startBenchServer } from './servers/spawn.js';
import { firstBookId, login } from './session.js';
import { benchCount } from './settings.js';
import { HOME_REQUEST, HOME_SERVER, homePagePlan, homePageTargets } from './web-front.js';

const connections = benchCount(process.env, 'BENCH_CONNECTIONS', 50);
const durationSeconds = benchCount(process.env, 'BENCH_DURATION', 4);
/** Before each row: the row's own request, so the server has just run this route. */
const warmupSeconds = 1;
/**
 * Rounds of each request's rows, taken in turns. One 4 s window a row put the same two servers 0.73 to 1.17
 * apart from run to run on the shared two cores (the rate limit's cost, 2026-12-08), past the targets' margins.
 */
const roundsPerRow = benchCount(process.env, 'BENCH_ROUNDS', 3);

/** The round with the median req/s (the lower middle one of an even count). */
function medianRound(rounds: readonly Measurement[]): Measurement {
  const sorted = [...rounds].sort((a, b) => a.result.requestsPerSecond - b.result.requestsPerSecond);
  return sorted[Math.floor((sorted.length - 1) / 2)] as Measurement;
}
/** A server's first warm-up ends when two 1 s windows in a row cost within 10 % CPU per request. */
const settleWindowsMax = benchCount(process.env, 'BENCH_SETTLE_MAX', 6);

/**
 * Loads a fresh server in 1 s windows until its CPU time per request settles (two windows in a row
 * within 10 % of each other) or `settleWindowsMax` windows have run: a fresh service's first windows
 * cost several times the later ones while V8 compiles its hot code. Returns the windows it took.
 */
async function settle(server: BenchServer, options: LoadOptions): Promise<number> {
  let previous: number | undefined;
  for (let window = 1; window <= settleWindowsMax; window++) {
    const before = server.cpuMicros();
    const result = await runLoad({ ...options, durationSeconds: 1 });
    const after = server.cpuMicros();
    if (before === undefined || after === undefined) return window;
    const perRequest = (after - before) / Math.max(1, result.requests);
    if (previous !== undefined && Math.abs(perRequest - previous) <= 0.1 * previous) return window;
    previous = perRequest;
  }
  return settleWindowsMax;
}
const sessionSecret = randomBytes(32).toString('base64url');

interface DatabaseTarget {
  label: string;
  /** Server environment selecting the database (empty: in-memory PGlite per process). */
  env: NodeJS.ProcessEnv;
  cleanup(): Promise<void>;
}

async function postgresTarget(url: string): Promise<DatabaseTarget> {
  return { label: 'PostgreSQL', ...(await benchSchema(url)) };
}

/** A search that matches 21 of the 10,000 seeded books (authors `Author 42`, and book 42's synopsis). */
export const SEARCH_QUERY = '42';

interface Ports {
  app: number;
  unlimited: number;
  /** The service with PGlite in the other thread (PGlite only). */
  otherThread: number;
}

async function measure(target: DatabaseTarget, idpIssuer: string, ports: Ports): Promise<Measurement[]> {
  const servers: BenchServer[] = [];
  try {
    const serviceEnv = {
      ...target.env,
      SESSION_SECRET: sessionSecret,
      OIDC_PROVIDERS: 'dev',
      OIDC_DEV_ISSUER: idpIssuer,
    };
    // The per-user limit runs in process, high enough that the one benchmark user never reaches it.
    const service = await startBenchServer('service', {
      ...serviceEnv,
      PORT: String(ports.app),
      RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    servers.push(service);
    // The first server has migrated and seeded a PostgreSQL schema; the others start side by side.
    const [unlimited, otherThread] = await Promise.all([
      startBenchServer('service', {
        ...serviceEnv,
        PORT: String(ports.unlimited),
        RATE_LIMIT_PER_MINUTE: '0',
      }),
      // PGlite in the thread the service does not use by default, for the PGlite list and by-id rows.
      target.label === 'PGlite'
        ? startBenchServer('service', {
            ...serviceEnv,
            PORT: String(ports.otherThread),
            RATE_LIMIT_PER_MINUTE: '1000000000',
            PGLITE_THREAD: OTHER_THREAD.setting,
          })
        : undefined,
    ]);
    servers.push(unlimited);
    if (otherThread !== undefined) servers.push(otherThread);
    const app = `http://127.0.0.1:${service.port}`;
    const { sessionId, cookie } = await login(app);
    // Its own login: with PGlite each server process has its own database, so its own sessions.
    const unlimitedCookie = (await login(`http://127.0.0.1:${unlimited.port}`)).cookie;
    const [baseline, baselineWithSession] = await Promise.all([
      startBenchServer('baseline', target.env),
      startBenchServer('baseline', {
        ...target.env,
        BASELINE_SESSION_SECRET: sessionSecret,
        BASELINE_SESSION_ID: sessionId,
      }),
    ]);
    servers.push(baseline, baselineWithSession);
    const bookId = await firstBookId(app, cookie);

    const raw = { name: RAW, port: baseline.port, server: baseline, cookie };
    const rawSession = {
      name: RAW_SESSION,
      port: baselineWithSession.port,
      server: baselineWithSession,
      cookie,
    };
    const limited = { name: SERVICE, port: service.port, server: service, cookie };
    const off = {
      name: 'service, rate limit off',
      port: unlimited.port,
      server: unlimited,
      cookie: unlimitedCookie,
    };
    const other =
      otherThread === undefined
        ? []
        : [
            {
              name: OTHER_THREAD.server,
              port: otherThread.port,
              server: otherThread,
              cookie: (await login(`http://127.0.0.1:${otherThread.port}`)).cookie,
            },
          ];
    // The rows a target compares run next to each other: the list with the limit on and off, then
    // the search right after the list it is compared with.
    const plans: { path: string; request: string; accept?: string; contenders: (typeof raw)[] }[] = [
      {
        path: '/books?page=0&size=20',
        request: 'GET /books?page=0&size=20',
        contenders: [raw, rawSession, limited, ...other, off],
      },
      homePagePlan(limited),
      { path: `/books?page=0&size=20&q=${SEARCH_QUERY}`, request: SEARCH_REQUEST, contenders: [limited] },
      {
        path: `/books/${bookId}`,
        request: 'GET /books/{id}',
        contenders: [raw, rawSession, limited, ...other],
      },
    ];
    const measurements: Measurement[] = [];
    const settled = new Set<number>();
    for (const { path, request, accept = 'application/json', contenders } of plans) {
      // The rows of one request in turns (A B C, A B C, ...), each row keeping its median round by
      // req/s: the ratios the targets take compare rows measured side by side, not seconds apart.
      const rounds = new Map<string, Measurement[]>();
      for (let round = 0; round < roundsPerRow; round++) {
        for (const contender of contenders) {
          const options: LoadOptions = {
            url: `http://127.0.0.1:${contender.port}${path}`,
            headers: { cookie: contender.cookie, accept },
            connections,
            durationSeconds,
          };
          const server = contender.server;
          if (!settled.has(server.port)) {
            const windows = await settle(server, options);
            settled.add(server.port);
            process.stderr.write(`bench: ${target.label} ${contender.name} settled after ${windows} s\n`);
          }
          await runLoad({ ...options, durationSeconds: warmupSeconds });
          const cpuBefore = server.cpuMicros();
          const result = await runLoad(options);
          const cpuAfter = server.cpuMicros();
          const measured = rounds.get(contender.name) ?? [];
          measured.push({
            database: target.label,
            request,
            server: contender.name,
            result,
            cpuMicrosPerRequest:
              cpuBefore === undefined || cpuAfter === undefined || result.requests === 0
                ? undefined
                : (cpuAfter - cpuBefore) / result.requests,
          });
          rounds.set(contender.name, measured);
          process.stderr.write(
            `bench: ${target.label} ${request} ${contender.name} (round ${round + 1} of ${roundsPerRow}): ${result.requestsPerSecond.toFixed(0)} req/s\n`,
          );
        }
      }
      for (const measured of rounds.values()) measurements.push(medianRound(measured));
    }
    return measurements;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await target.cleanup();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const ports: Ports = { app: await freePort(), unlimited: await freePort(), otherThread: await freePort() };
  const idp = await startDevIdentityProvider({
    host: '127.0.0.1',
    port: 0,
    clientBaseUrls: Object.values(ports).map((port) => `http://127.0.0.1:${port}`),
  });
  const targets: DatabaseTarget[] = [{ label: 'PGlite', env: {}, cleanup: async () => {} }];
  const url = process.env.DATABASE_URL;
  if (url) targets.push(await postgresTarget(url));
  else process.stderr.write('bench: DATABASE_URL is not set, so PostgreSQL is not measured\n');

  const measurements: Measurement[] = [];
  try {
    for (const target of targets) measurements.push(...(await measure(target, idp.issuer, ports)));
  } finally {
    await idp.close();
  }
  // Notice delivery: the outbox is on PostgreSQL, so only with DATABASE_URL.
  const delivery: DeliveryMeasurement | undefined = url ? await measureDelivery(url) : undefined;

  const command = loadCommand({
    url: 'http://127.0.0.1:<port>/books?page=0&size=20',
    headers: { cookie: 'JSESSIONID=…; XSRF-TOKEN=…' },
    connections,
    durationSeconds,
  });
  const report = `# Book service benchmark

Run: \`${process.env.DATABASE_URL ? 'DATABASE_URL=postgres://… ' : ''}npm run bench -w packages/books\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}.
Each row is autocannon with ${connections} connections for ${durationSeconds} s after a ${warmupSeconds} s warm-up on the row's request, the median by req/s of ${roundsPerRow} rounds
taken in turns with the other rows of its request, equivalent to
\`${command}\`; before its first row, each server process is loaded in 1 s windows until two windows in a row cost within
10 % CPU per request (at most ${settleWindowsMax}). Load generator, servers and database share the machine. ${measurements.length} rows took ${Math.round((Date.now() - started) / 1000)} s in all.
**server CPU µs/req** is the server process's CPU time (user + system, every thread, from /proc) over the requests it
answered in the row; the database server's own CPU is not in it. On a machine busy with other work, CPU per request
moves much less than req/s and p99: compare the CPU column first.

- **service**: the book service as \`npm start\` builds it (fastify, contract validation and serialisation, session
  lookup through its 5 s in-process cache, CSRF hook, pickup expiry, HAL links, ETags, the per-user rate limit in process
  with a limit the run never reaches), authenticated with the cookies of a real login at the development identity
  provider. **service, rate limit off**: the same with \`RATE_LIMIT_PER_MINUTE=0\`.
- \`${HOME_REQUEST}\` (**${HOME_SERVER}**): the web front's home page, 20 books rendered as HTML by the same service
  process, right after its JSON list.
- **${OTHER_THREAD.server}** (PGlite only): the service with \`PGLITE_THREAD=${OTHER_THREAD.setting}\`, its own database
  in the server's own thread (the default runs it in a worker thread), measured right after the service on the same request.
- \`${SEARCH_REQUEST}\`: full-text search matching 21 of the books, ranked, first page.
- **raw baseline**: node:http and the same SQL as the service (the page with its maintained total in one statement,
  or one book by id, both with the caller's holds; named prepared statements on PostgreSQL, as the service), JSON
  out, no auth, no framework.
- **raw baseline + session lookup**: the baseline plus the service's session query (HMAC of the cookie, primary-key
  probe joined with the user) on every request, to show what a session lookup costs by itself. The issue's target
  compares the service with this row.
- 10,000 books; PGlite is in memory, one per server process; PostgreSQL is a fresh schema on DATABASE_URL.

${resultsTable(measurements)}

Targets:

${targetsChecklist(measurements, connections)}
${homePageTargets(measurements).join('\n')}
${
  delivery === undefined
    ? ''
    : `
Notice delivery: the real \`books serve\` process, its outbox on PostgreSQL (a fresh schema holding ${delivery.notices}
pending notices), delivering through nodemailer's pooled SMTP transport (5 connections) to an SMTP server
(\`smtp-server\`) on loopback in the bench process, which reads each mail and accepts it. notices/s counts from the
first notice marked sent to the last (the process's start-up is not in it).

${DELIVERY_HEADER}
${deliveryRow(delivery)}
`
}`;
  console.log(report);
  await writeFile(new URL('./RESULTS.md', import.meta.url), report);
}

await main();
