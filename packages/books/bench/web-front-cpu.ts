// `npx tsx bench/web-front-cpu.ts`: CPU time per request of the home page (20 books, HTML) and of the
// JSON list it shows, on one in-process service and database (in-memory PGlite, 10,000 seeded books),
// through fastify's inject (no sockets). Rounds alternate the two requests, so load from elsewhere on
// a shared machine hits both alike; CPU time (process.cpuUsage), unlike wall-clock throughput, barely
// depends on that load. Bounded: 10 rounds of 200 requests each.
import { buildApp } from '../src/app/app.js';
import { loadConfig } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { openPglite } from '../src/db/pglite.js';
import { UsersRepository } from '../src/modules/users/users.repository.js';
import { seedBooks } from './seed.js';

const ROUNDS = 10;
const PER_ROUND = 200;

const db = await openPglite(undefined);
await migrate(db);
await seedBooks(db);
const config = loadConfig({ RATE_LIMIT_PER_MINUTE: '0', LOG_LEVEL: 'silent' });
const app = await buildApp({ config, db });
const user = await new UsersRepository(db, []).upsertFromLogin({
  issuer: 'urn:bench',
  subject: 'reader',
  email: 'reader@example.test',
  emailVerified: true,
  name: 'Reader',
});
const cookie = `JSESSIONID=${await app.sessions.store.create(user.id)}; XSRF-TOKEN=${'x'.repeat(43)}`;

const requests = {
  json: { url: '/books?page=0&size=20', accept: 'application/json' },
  html: { url: '/?page=0&size=20', accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
};
type Kind = keyof typeof requests;

async function cpuMicrosPerRequest(kind: Kind): Promise<number> {
  const { url, accept } = requests[kind];
  const start = process.cpuUsage();
  for (let i = 0; i < PER_ROUND; i++) {
    const response = await app.inject({ method: 'GET', url, headers: { cookie, accept } });
    if (response.statusCode !== 200) throw new Error(`${url} answered ${response.statusCode}`);
  }
  const used = process.cpuUsage(start);
  return (used.user + used.system) / PER_ROUND;
}

for (const kind of ['json', 'html'] as const) await cpuMicrosPerRequest(kind); // warm-up
const totals: Record<Kind, number[]> = { json: [], html: [] };
for (let round = 0; round < ROUNDS; round++) {
  for (const kind of round % 2 === 0 ? (['json', 'html'] as const) : (['html', 'json'] as const)) {
    totals[kind].push(await cpuMicrosPerRequest(kind));
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const json = median(totals.json);
const html = median(totals.html);
const bytes = (kind: Kind) =>
  app
    .inject({ method: 'GET', url: requests[kind].url, headers: { cookie, accept: requests[kind].accept } })
    .then((response) => response.body.length);
console.log(`| Request | CPU µs per request (median of ${ROUNDS} rounds × ${PER_ROUND}) | body bytes |`);
console.log('|---|---:|---:|');
console.log(`| \`GET /books?page=0&size=20\` (JSON) | ${json.toFixed(0)} | ${await bytes('json')} |`);
console.log(`| \`GET /?page=0&size=20\` (home page, HTML) | ${html.toFixed(0)} | ${await bytes('html')} |`);
console.log(
  `\nHome page speed relative to the JSON list (CPU time ratio json/html): ${(json / html).toFixed(2)} (target ≥ 0.5)`,
);
await app.close();
await db.close();
