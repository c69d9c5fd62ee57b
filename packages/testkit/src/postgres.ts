/**
 * The PostgreSQL the tests may use. It comes only from DATABASE_URL: the harness never guesses
 * credentials. Under CI a missing DATABASE_URL is a failure, because .ci/run always sets it.
 */
export function databaseUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  if (url) return url;
  if (process.env.CI === 'true' || process.env.CI === '1') {
    throw new Error('CI=true but DATABASE_URL is not set: .ci/run exports it after scripts/services.sh');
  }
  process.stderr.write('\n*** SKIPPING PostgreSQL tests: set DATABASE_URL (see scripts/services.sh) ***\n\n');
  return undefined;
}
