// The notice delivery row: how many notices a second the real `books` process delivers from its outbox
// on PostgreSQL to an SMTP server on loopback. Run by `npm run bench` (with DATABASE_URL) or alone:
// `DATABASE_URL=postgres://… tsx bench/delivery.ts`.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { SMTPServer } from 'smtp-server';
import { migrate } from '../src/db/migrate.js';
import { openPostgres } from '../src/db/postgres.js';
import { benchSchema } from './schema.js';
import { benchCount } from './settings.js';

export interface DeliveryMeasurement {
  notices: number;
  /** Notices per second, from the first notice marked sent to the last. */
  perSecond: number;
  seconds: number;
  /** Mails the SMTP server accepted (more than `notices` only if one came twice). */
  accepted: number;
}

const booksLauncher = fileURLToPath(new URL('../bin/books.mjs', import.meta.url));

/** Queues `notices` notices in a fresh schema, starts `books serve` on it, and times their delivery. */
export async function measureDelivery(url: string, notices = 3000): Promise<DeliveryMeasurement> {
  const schema = await benchSchema(url);
  let accepted = 0;
  // The receiving end does as little as it can: it reads each mail and says 250.
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, _session, callback) {
      stream.resume();
      stream.on('end', () => {
        accepted++;
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
  const { port } = smtp.server.address() as AddressInfo;
  const db = await openPostgres({ connectionString: url, poolMax: 2, schema: schema.env.BENCH_PG_SCHEMA });
  try {
    await migrate(db);
    await db.exec(`
      insert into users (issuer, subject, email, email_verified, name)
        select 'urn:bench', 'reader-' || i, 'reader-' || i || '@example.test', true, 'Reader ' || i
        from generate_series(1, ${notices}) i;
      insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, next_attempt_at)
        select 'pickup.ready', u.id, gen_random_uuid(), gen_random_uuid(), 'Bench', now() + interval '3 days', now(), now()
        from users u where u.issuer = 'urn:bench';`);
    const databaseUrl = new URL(url);
    databaseUrl.searchParams.set('options', `-c search_path=${schema.env.BENCH_PG_SCHEMA}`);
    const books = spawn(process.execPath, [booksLauncher, 'serve'], {
      stdio: ['ignore', 'ignore', 'inherit'],
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl.toString(),
        PORT: '0',
        SMTP_URL: `smtp://127.0.0.1:${port}`,
        LOG_LEVEL: 'warn',
      },
    });
    try {
      for (;;) {
        const [row] = await db.query<{ left: number }>(
          `select count(*)::int as left from notices where status <> 'sent'`,
        );
        if (row?.left === 0) break;
        if (books.exitCode !== null) throw new Error(`books exited with ${books.exitCode}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    } finally {
      books.kill('SIGTERM');
      await once(books, 'exit');
    }
    const [span] = await db.query<{ seconds: number }>(
      'select extract(epoch from max(sent_at) - min(sent_at))::float8 as seconds from notices',
    );
    const seconds = span?.seconds ?? 0;
    return { notices, seconds, perSecond: (notices - 1) / seconds, accepted };
  } finally {
    await db.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
    await schema.cleanup();
  }
}

/** The row of RESULTS.md. */
export function deliveryRow(result: DeliveryMeasurement): string {
  return `| PostgreSQL | notices to loopback SMTP | ${result.notices} | ${result.perSecond.toFixed(0)} | ${result.seconds.toFixed(2)} | ${result.accepted} | ${result.perSecond >= 200 ? 'met' : 'missed'} (≥ 200/s) |`;
}

export const DELIVERY_HEADER = `| Database | Work | notices | notices/s | seconds | mails accepted | target |
|---|---|---:|---:|---:|---:|---|`;

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('set DATABASE_URL to a PostgreSQL server');
  const result = await measureDelivery(url, benchCount(process.env, 'BENCH_NOTICES', 3000));
  console.log(`${DELIVERY_HEADER}\n${deliveryRow(result)}`);
}
