// `npm run bench -w packages/books`: the book service against a raw node:http baseline running the
// same SQL, on PGlite and (with DATABASE_URL) PostgreSQL, authenticated through a real login at the
// development identity provider. Bounded: about 6 s per run, 12 runs. Writes bench/RESULTS.md.
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { freePort } from '@platform/testkit';
import { startDevIdentityProvider } from '../dev/identity-provider.js';
import { type LoadOptions, loadCommand, runLoad } from './load.js';
import { type Measurement, machineLine, resultsTable, SEARCH_REQUEST, targetsChecklist } from './report.js';
import { benchSchema } from './schema.js';
import { type BenchServer, startBenchServer } from './servers/spawn.js';
import { firstBookId, login } from './session.js';
import { HOME_REQUEST, HOME_SERVER, homePagePlan, homePageTargets } from './web-front.js';

const connections = Number(process.env.BENCH_CONNECTIONS ?? 50);
const durationSeconds = Number(process.env.BENCH_DURATION ?? 5);
const warmupSeconds = 1;
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

async function measure(
  target: DatabaseTarget,
  idpIssuer: string,
  appPort: number,
  unlimitedPort: number,
): Promise<Measurement[]> {
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
      PORT: String(appPort),
      RATE_LIMIT_PER_MINUTE: '1000000000',
    });
    servers.push(service);
    const unlimited = await startBenchServer('service', {
      ...serviceEnv,
      PORT: String(unlimitedPort),
      RATE_LIMIT_PER_MINUTE: '0',
    });
    servers.push(unlimited);
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

    const raw = { name: 'raw baseline', port: baseline.port, cookie };
    const rawSession = { name: 'raw baseline + session lookup', port: baselineWithSession.port, cookie };
    const limited = { name: 'service', port: service.port, cookie };
    const off = { name: 'service, rate limit off', port: unlimited.port, cookie: unlimitedCookie };
    // The rows a target compares run next to each other: the list with the limit on and off, then
    // the search right after the list it is compared with.
    const plans: { path: string; request: string; accept?: string; contenders: (typeof raw)[] }[] = [
      {
        path: '/books?page=0&size=20',
        request: 'GET /books?page=0&size=20',
        contenders: [raw, rawSession, limited, off],
      },
      homePagePlan(limited),
      { path: `/books?page=0&size=20&q=${SEARCH_QUERY}`, request: SEARCH_REQUEST, contenders: [limited] },
      { path: `/books/${bookId}`, request: 'GET /books/{id}', contenders: [raw, rawSession, limited] },
    ];
    const measurements: Measurement[] = [];
    let baselineRate = 0;
    for (const { path, request, accept = 'application/json', contenders } of plans) {
      for (const contender of contenders) {
        const options: LoadOptions = {
          url: `http://127.0.0.1:${contender.port}${path}`,
          headers: { cookie: contender.cookie, accept },
          connections,
          durationSeconds,
        };
        await runLoad({ ...options, durationSeconds: warmupSeconds });
        const result = await runLoad(options);
        if (contender.name === 'raw baseline') baselineRate = result.requestsPerSecond;
        measurements.push({
          database: target.label,
          request,
          server: contender.name,
          result,
          ratio: baselineRate === 0 ? 0 : result.requestsPerSecond / baselineRate,
        });
        process.stderr.write(
          `bench: ${target.label} ${request} ${contender.name}: ${result.requestsPerSecond.toFixed(0)} req/s\n`,
        );
      }
    }
    return measurements;
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await target.cleanup();
  }
}

async function main(): Promise<void> {
  const started = Date.now();
  const appPort = await freePort();
  const unlimitedPort = await freePort();
  const idp = await startDevIdentityProvider({
    host: '127.0.0.1',
    port: 0,
    clientBaseUrls: [`http://127.0.0.1:${appPort}`, `http://127.0.0.1:${unlimitedPort}`],
  });
  const targets: DatabaseTarget[] = [{ label: 'PGlite', env: {}, cleanup: async () => {} }];
  const url = process.env.DATABASE_URL;
  if (url) targets.push(await postgresTarget(url));
  else process.stderr.write('bench: DATABASE_URL is not set, so PostgreSQL is not measured\n');

  const measurements: Measurement[] = [];
  try {
    for (const target of targets)
      measurements.push(...(await measure(target, idp.issuer, appPort, unlimitedPort)));
  } finally {
    await idp.close();
  }

  const command = loadCommand({
    url: 'http://127.0.0.1:<port>/books?page=0&size=20',
    headers: { cookie: 'JSESSIONID=…; XSRF-TOKEN=…' },
    connections,
    durationSeconds,
  });
  const report = `# Book service benchmark

Run: \`${process.env.DATABASE_URL ? 'DATABASE_URL=postgres://… ' : ''}npm run bench -w packages/books\` on ${new Date().toISOString().slice(0, 10)}, ${machineLine()}.
Each row is autocannon with ${connections} connections for ${durationSeconds} s after a ${warmupSeconds} s warm-up, equivalent to
\`${command}\`. Load generator, servers and database share the machine. ${measurements.length} runs took ${Math.round((Date.now() - started) / 1000)} s in all.

- **service**: the book service as \`npm start\` builds it (fastify, contract validation and serialisation, session
  lookup through its 5 s in-process cache, CSRF hook, lazy expiry probe, HAL links, the per-user rate limit in process
  with a limit the run never reaches), authenticated with the cookies of a real login at the development identity
  provider. **service, rate limit off**: the same with \`RATE_LIMIT_PER_MINUTE=0\`.
- \`${HOME_REQUEST}\` (**${HOME_SERVER}**): the web front's home page, 20 books rendered as HTML by the same service
  process, right after its JSON list (its ratio column is to the list's raw baseline).
- \`${SEARCH_REQUEST}\`: full-text search matching 21 of the books, ranked, first page.
- **raw baseline**: node:http and the same SQL (the page with its maintained total in one statement, or one row by
  id; named prepared statements on PostgreSQL, as the service), JSON out, no auth, no framework.
- **raw baseline + session lookup**: the baseline plus the service's session query (HMAC of the cookie, primary-key
  probe joined with the user), to show what a session lookup costs by itself.
- 10,000 books; PGlite is in memory, one per server process; PostgreSQL is a fresh schema on DATABASE_URL.

${resultsTable(measurements)}

Targets:

${targetsChecklist(measurements, connections)}
${homePageTargets(measurements).join('\n')}
`;
  console.log(report);
  await writeFile(new URL('./RESULTS.md', import.meta.url), report);
}

await main();
