// When DATABASE_URL is unset, `npm test` uses the PostgreSQL that scripts/services.sh prepares, if
// it answers: no one should have to know the variable to run the whole suite on a machine that has it.
export const LOCAL_DATABASE_URL = 'postgres://postgres:postgres@127.0.0.1:5432/platform_test';
const CONNECT_TIMEOUT_MS = 2000;

/** True when LOCAL_DATABASE_URL accepts a connection and a query. */
export async function localPostgresAnswers() {
  let pg;
  try {
    pg = (await import('pg')).default;
  } catch {
    return false;
  }
  const client = new pg.Client({
    connectionString: LOCAL_DATABASE_URL,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}
