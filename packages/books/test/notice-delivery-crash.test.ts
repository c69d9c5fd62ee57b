import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { after, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { databaseUrl } from '@platform/testkit';
import { messageIdOf } from '../src/modules/notices/notice.js';
import { packageRoot } from '../src/paths.js';
import { booksLauncher } from './support/books-command.js';
import { openTestDatabase, postgresSkip, type TestDatabase } from './support/service.js';
import { startTestSmtpServer, type TestSmtpServer } from './support/smtp-server.js';

const NOTICES = 200;

let database: TestDatabase | undefined;
let smtp: TestSmtpServer | undefined;
const children = new Set<ChildProcess>();
after(async () => {
  for (const child of children) child.kill('SIGKILL');
  await smtp?.close();
  await database?.dispose();
});

/** The real `books serve` process on the test schema, delivering to the test SMTP server. */
function startBooks(schema: string, smtpUrl: string): ChildProcess {
  const url = new URL(databaseUrl() ?? '');
  url.searchParams.set('options', `-c search_path=${schema}`);
  const child = spawn(process.execPath, [booksLauncher, 'serve'], {
    cwd: packageRoot,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      DATABASE_URL: url.toString(),
      PORT: '0',
      SMTP_URL: smtpUrl,
      NOTICE_POLL_INTERVAL: '50ms',
      // A claim of the killed process is retaken 2 s later.
      NOTICE_LEASE: '2s',
      LOG_LEVEL: 'warn',
      LOG_FORMAT: 'json',
    },
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  return child;
}

async function statuses(db: TestDatabase['db']): Promise<Map<string, string>> {
  const rows = await db.query<{ id: string; status: string }>('select id, status from notices');
  return new Map(rows.map((row) => [row.id, row.status]));
}

test(`SIGKILL mid-delivery with ${NOTICES} notices in flight, then a restart: every notice is delivered, and only a mail the server accepted before the kill comes twice`, {
  skip: postgresSkip(),
  timeout: 180_000,
}, async () => {
  database = await openTestDatabase('postgres');
  const { db } = database;
  const [{ schema } = { schema: '' }] = await db.query<{ schema: string }>(
    'select current_schema() as schema',
  );
  smtp = await startTestSmtpServer();
  // A slow server: the worker has its batch in flight when the kill comes.
  smtp.acceptDelayMs = 5;

  await db.exec(`
    insert into users (issuer, subject, email, email_verified, name)
      select 'urn:test', 'reader-' || i, 'reader-' || i || '@example.test', true, 'Reader ' || i
      from generate_series(1, ${NOTICES}) i;
    insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, next_attempt_at)
      select 'pickup.ready', u.id, gen_random_uuid(), gen_random_uuid(), 'Crash course', now() + interval '3 days',
             now(), now()
      from users u where u.issuer = 'urn:test';
  `);
  const ids = [...(await statuses(db)).keys()];
  assert.equal(ids.length, NOTICES);

  const first = startBooks(schema, smtp.url);
  const killed = once(first, 'exit');
  // Killed from inside the server, just before it answers 250 to the 40th mail: that mail is accepted,
  // the worker never learns it, so it stays pending and comes again after the restart (and so may the
  // mails of the pool's other connections that the server accepts while the process dies).
  let killing = false;
  smtp.onAccept = () => {
    if (smtp === undefined || smtp.received.length + 1 < 40 || killing) return;
    killing = true;
    first.kill('SIGKILL');
  };
  await killed;
  assert.equal(first.signalCode, 'SIGKILL');
  smtp.onAccept = undefined;
  // Statements the dead process had sent finish (or roll back) on the server.
  await sleep(1000);
  const atKill = await statuses(db);
  // Everything the server accepted from the first process, before or while it died.
  const acceptedBeforeKill = new Set(smtp.received.map((mail) => mail.messageId));
  const sentAtKill = ids.filter((id) => atKill.get(id) === 'sent');
  assert.ok(
    sentAtKill.length > 0 && sentAtKill.length < NOTICES,
    `killed mid-delivery (${sentAtKill.length} sent)`,
  );
  // The documented window: accepted by the server, not marked sent when the process died.
  const window = new Set(
    ids.filter((id) => atKill.get(id) !== 'sent' && acceptedBeforeKill.has(messageIdOf(id))),
  );
  assert.ok(window.size >= 1, 'the mail accepted at the kill was not marked sent');

  const second = startBooks(schema, smtp.url);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const now = await statuses(db);
    if (ids.every((id) => now.get(id) === 'sent')) break;
    assert.ok(
      Date.now() < deadline,
      `not all sent: ${[...now.values()].filter((s) => s !== 'sent').length} left`,
    );
    await sleep(200);
  }
  second.kill('SIGTERM');
  await once(second, 'exit');

  const counts = new Map<string, number>();
  for (const mail of smtp.received) counts.set(mail.messageId, (counts.get(mail.messageId) ?? 0) + 1);
  // Nothing lost: every notice's Message-ID arrived.
  for (const id of ids) assert.ok((counts.get(messageIdOf(id)) ?? 0) >= 1, `notice ${id} never arrived`);
  // Nothing else arrived, and nothing twice except in the window.
  assert.equal(counts.size, NOTICES);
  const doubled = ids.filter((id) => (counts.get(messageIdOf(id)) ?? 0) > 1);
  for (const id of doubled) {
    assert.ok(window.has(id), `notice ${id} came twice outside the documented window`);
    assert.equal(counts.get(messageIdOf(id)), 2);
  }
  assert.equal(smtp.received.length, NOTICES + doubled.length);
  // The receiver can drop the repeats by Message-ID: what is left is one mail per notice.
  console.log(
    `# ${sentAtKill.length} marked sent at the kill, ${window.size} accepted but unmarked, ${doubled.length} delivered twice`,
  );
});
