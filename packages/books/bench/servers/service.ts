// The book service as `npm start` builds it (sessions, CSRF, guards, contract validation), on the
// benchmark database. Run by bench/run.ts; the environment carries the OIDC settings and PORT.
import { buildApp } from '../../src/app/app.js';
import { loadConfig } from '../../src/config.js';
import { announce, openBenchDatabase } from './database.js';
import { profileOnSignal } from './profiler.js';

profileOnSignal(process.env.BENCH_PROFILE_FILE);
const config = loadConfig(process.env);
const db = await openBenchDatabase(process.env, config.pgliteThread);
const app = await buildApp({ config, db, logger: false });
await app.listen({ port: config.port, host: '127.0.0.1' });
announce(config.port);
process.once(
  'SIGTERM',
  () =>
    void app
      .close()
      .then(() => db.close())
      .then(() => process.exit(0)),
);
