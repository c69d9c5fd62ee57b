// throwaway: service on a seeded PG schema with a test session; prints cookie and port

import { seedBooks } from '/work/wt/books-perf/packages/books/bench/seed.js';
import { buildApp } from '/work/wt/books-perf/packages/books/src/app.js';
import { loadConfig } from '/work/wt/books-perf/packages/books/src/config.js';
import { migrate } from '/work/wt/books-perf/packages/books/src/db/migrate.js';
import { openPostgres } from '/work/wt/books-perf/packages/books/src/db/postgres.js';
import { createTestSession } from '/work/wt/books-perf/packages/books/test/support/test-sessions.js';

const db = await openPostgres({
  connectionString: process.env.DATABASE_URL!,
  poolMax: 20,
  schema: 'bp_prof',
});
await migrate(db);
await seedBooks(db);
const config = loadConfig({ ...process.env, PORT: '0', SESSION_SECRET: 'x'.repeat(40) });
const app = await buildApp({ config, db, logger: false });
await app.listen({ port: 39123, host: '127.0.0.1' });
const s = await createTestSession(app);
console.log(JSON.stringify({ cookie: s.cookie }));
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => db.close())
      .then(() => process.exit(0)),
);
process.once(
  'SIGINT',
  () =>
    void app
      .close()
      .then(() => db.close())
      .then(() => process.exit(0)),
);
