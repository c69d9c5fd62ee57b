#!/usr/bin/env node
// The books command: `books serve` (default) runs the service; `books migrate` applies the SQL migrations;
// `books users promote|demote <email>` changes a user's role. The service (fastify and the rest) and the
// database drivers (PGlite, pg) are imported by the command that needs them, once its arguments are read:
// loading all of them took seconds before `--help` or a usage error could answer.
import { exitOnStartupError } from '../src/app/startup-error.js';
import { withLocalEnv } from '../src/auth/oidc/local-env.js';
import { type Config, loadConfig } from '../src/config.js';
import type { Database } from '../src/db/database.js';
import { migrate } from '../src/db/migrate.js';
import type { Role } from '../src/modules/users/user.js';
import { UsersRepository } from '../src/modules/users/users.repository.js';

const USAGE = `usage: books [serve|migrate|users promote <email>|users demote <email>]
  serve                 run the HTTP service (applies pending migrations first)   [default]
  migrate               apply pending SQL migrations to DATABASE_URL and exit
  users promote <email> give ROLE_ADMIN to the user(s) with this email
  users demote <email>  set the user(s) with this email back to ROLE_USER
  -h, --help            print this usage and exit
Configuration comes from the environment and ./.env.local (PORT, HOST, DATABASE_URL, OIDC_*, ...);
every setting is in the configuration table of packages/books/README.md.`;

class UsageError extends Error {}

/** The environment, with the untracked ./.env.local (login provider secrets) underneath. */
const config = () => loadConfig(withLocalEnv());
/** Where the service was asked to listen, once the configuration has been read. */
let listening: Pick<Config, 'host' | 'port'> | undefined;

async function serve(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`unexpected argument '${args[0]}': serve takes none`);
  const settings = config();
  listening = settings;
  const { startService } = await import('../src/app/server.js');
  const service = await startService(settings);
  const stop = async () => {
    await service.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** The configured database, opened (PGlite or pg, loaded here). */
async function openConfiguredDatabase(): Promise<Database> {
  const settings = config();
  const { openDatabase } = await import('../src/db/open.js');
  return openDatabase(settings.database);
}

async function migrateCommand(args: string[]): Promise<void> {
  if (args.length > 0) throw new UsageError(`unexpected argument '${args[0]}': migrate takes none`);
  const db = await openConfiguredDatabase();
  try {
    const { applied } = await migrate(db);
    console.log(
      applied.length === 0 ? 'books: schema is up to date' : `books: applied ${applied.join(', ')}`,
    );
  } finally {
    await db.close();
  }
}

const ROLE_BY_ACTION: Record<string, Role> = { promote: 'ROLE_ADMIN', demote: 'ROLE_USER' };

async function usersCommand(args: string[]): Promise<void> {
  const [action = '', email, ...rest] = args;
  const role = ROLE_BY_ACTION[action];
  if (role === undefined || email === undefined || rest.length > 0) {
    throw new UsageError('users needs promote or demote, then one email');
  }
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError(`'${email}' is not an email address`);
  const db = await openConfiguredDatabase();
  try {
    await migrate(db);
    const changed = await new UsersRepository(db, []).setRoleByEmail(email, role);
    if (changed === 0) {
      console.error(`books: no user with email ${email}; the user must log in once first`);
      process.exitCode = 1;
      return;
    }
    console.log(`books: ${email} is now ${role} (${changed} user${changed === 1 ? '' : 's'})`);
  } finally {
    await db.close();
  }
}

const commands: Record<string, (args: string[]) => Promise<void>> = {
  serve,
  migrate: migrateCommand,
  users: usersCommand,
};

async function main(args: string[]): Promise<void> {
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [name = 'serve', ...rest] = args;
  const command = Object.hasOwn(commands, name) ? commands[name] : undefined;
  if (command === undefined) {
    throw new UsageError(name.startsWith('-') ? `unknown option '${name}'` : `unknown command '${name}'`);
  }
  await command(rest);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`books: ${error.message} (see books --help)`);
    process.exit(2);
  }
  exitOnStartupError(error, listening);
});
