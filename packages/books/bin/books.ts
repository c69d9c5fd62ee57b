#!/usr/bin/env node
// The books command: `books serve` (default) runs the service; `books migrate` applies the SQL migrations.
import { ConfigError, loadConfig } from '../src/config.js';
import { migrate } from '../src/db/migrate.js';
import { openDatabase } from '../src/db/open.js';
import { startService } from '../src/server.js';

const USAGE = `usage: books [serve|migrate]
  serve    run the HTTP service (applies pending migrations first)   [default]
  migrate  apply pending SQL migrations to DATABASE_URL and exit
Configuration comes from the environment; see packages/books/README.md.`;

async function serve(): Promise<void> {
  const service = await startService(loadConfig());
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

async function migrateCommand(): Promise<void> {
  const db = await openDatabase(loadConfig().database);
  try {
    const { applied } = await migrate(db);
    console.log(
      applied.length === 0 ? 'books: schema is up to date' : `books: applied ${applied.join(', ')}`,
    );
  } finally {
    await db.close();
  }
}

const commands: Record<string, () => Promise<void>> = { serve, migrate: migrateCommand };

async function main(args: string[]): Promise<void> {
  const [name = 'serve'] = args;
  const command = commands[name];
  if (command === undefined || args.length > 1) {
    console.error(
      args.includes('--help') || args.includes('-h') ? USAGE : `books: unknown arguments\n${USAGE}`,
    );
    process.exitCode = 2;
    return;
  }
  await command();
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof ConfigError) console.error(`books: ${error.message}`);
  else console.error('books: failed:', error);
  process.exit(1);
});
