import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { backoffMs, NoticeDelivery } from '../src/modules/notices/delivery.js';
import type { MailSender } from '../src/modules/notices/mail-sender.js';
import { smtpSender } from '../src/modules/notices/mail-sender.js';
import { NoticesRepository } from '../src/modules/notices/notices.repository.js';
import { type Driver, openTestDatabase, postgresSkip } from './support/service.js';
import { startTestSmtpServer } from './support/smtp-server.js';

test('backoff: the base, then twice as long each attempt, never above the cap', () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7].map((attempts) => backoffMs(attempts, 30_000, 300_000)),
    [30_000, 60_000, 120_000, 240_000, 300_000, 300_000, 300_000],
  );
});

const SETTINGS = {
  from: 'The library <library@books.local>',
  retryBaseMs: 1000,
  retryMaxMs: 8000,
  maxAttempts: 3,
  leaseMs: 60_000,
  batchSize: 25,
};

async function seed(
  db: Awaited<ReturnType<typeof openTestDatabase>>['db'],
  count: number,
  readyAt: string,
  pickupDays = 3,
) {
  await db.exec(`
    insert into users (issuer, subject, email, email_verified, name)
      select 'urn:test', 'reader-' || i, 'reader-' || i || '@example.test', true, 'Reader ' || i
      from generate_series(1, ${count}) i;
    insert into books (title, author, synopsis, copies) values ('Held', 'A', 'S', ${count});
    insert into reservations (book_id, user_id, status, reserved_at, ready_at, pickup_deadline)
      select b.id, u.id, 'READY', timestamptz '${readyAt}', timestamptz '${readyAt}',
             timestamptz '${readyAt}' + interval '${pickupDays} days'
      from users u, books b where u.issuer = 'urn:test';`);
}

function suite(driver: Driver, skip: false | string) {
  describe(`notice outbox (${driver})`, { skip }, () => {
    test('two sweeps at once (two replicas) queue each reminder once', async () => {
      const database = await openTestDatabase(driver);
      try {
        await seed(database.db, 30, '2026-03-01T10:00:00Z');
        const notices = new NoticesRepository(database.db);
        const now = new Date('2026-03-03T12:00:00Z');
        const queued = await Promise.all([
          notices.queueReminders(now, 3 * 86_400_000),
          notices.queueReminders(now, 3 * 86_400_000),
          notices.queueReminders(now, 3 * 86_400_000),
        ]);
        assert.equal(
          queued.reduce((a, b) => a + b, 0),
          30,
        );
        assert.equal(await notices.queueReminders(new Date('2026-03-03T13:00:00Z'), 3 * 86_400_000), 0);
        const [count] = await database.db.query<{ n: number }>(
          `select count(*)::int as n from notices where kind = 'pickup.reminder'`,
        );
        assert.equal(count?.n, 30);
      } finally {
        await database.dispose();
      }
    });

    test('a copy held for a day or less gets no separate pickup reminder', async () => {
      const database = await openTestDatabase(driver);
      try {
        await seed(database.db, 3, '2026-03-01T10:00:00Z', 1);
        const notices = new NoticesRepository(database.db);
        assert.equal(await notices.queueReminders(new Date('2026-03-01T12:00:00Z'), 3 * 86_400_000), 0);
      } finally {
        await database.dispose();
      }
    });

    test('two workers delivering at once (FOR UPDATE SKIP LOCKED) send every notice exactly once', async () => {
      const database = await openTestDatabase(driver);
      const smtp = await startTestSmtpServer();
      const senders: MailSender[] = [smtpSender(smtp.url), smtpSender(smtp.url)];
      try {
        await database.db.exec(`
          insert into users (issuer, subject, email, email_verified, name)
            select 'urn:test', 'r-' || i, 'r-' || i || '@example.test', true, 'R ' || i from generate_series(1, 120) i;
          insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, next_attempt_at)
            select 'pickup.ready', id, gen_random_uuid(), gen_random_uuid(), 'Race', now(), now(), now() from users;`);
        const notices = new NoticesRepository(database.db);
        const workers = senders.map((sender) => new NoticeDelivery(notices, sender, Date.now, SETTINGS));
        const claimed = [0, 0];
        await Promise.all(
          workers.map(async (worker, i) => {
            for (;;) {
              const round = await worker.deliverDue();
              if (round.claimed === 0) return;
              claimed[i] = (claimed[i] ?? 0) + round.claimed;
            }
          }),
        );
        assert.equal((claimed[0] ?? 0) + (claimed[1] ?? 0), 120);
        const ids = smtp.received.map((mail) => mail.messageId);
        assert.equal(ids.length, 120);
        assert.equal(new Set(ids).size, 120);
        const [left] = await database.db.query<{ n: number }>(
          `select count(*)::int as n from notices where status <> 'sent'`,
        );
        assert.equal(left?.n, 0);
      } finally {
        for (const sender of senders) sender.close();
        await smtp.close();
        await database.dispose();
      }
    });

    test('a claim whose lease ran out is taken again; the late worker cannot overwrite the new claim', async () => {
      const database = await openTestDatabase(driver);
      try {
        await seed(database.db, 1, '2026-03-01T10:00:00Z');
        const notices = new NoticesRepository(database.db);
        await database.db.exec(`
          insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, next_attempt_at)
            select 'pickup.ready', r.user_id, r.id, r.book_id, 'Held', r.pickup_deadline, r.ready_at, r.ready_at
            from reservations r
          ;`);
        const t0 = new Date('2026-03-01T10:00:00Z');
        const [first] = await notices.claim(t0, new Date(t0.getTime() + 60_000), 10);
        assert.ok(first);
        assert.equal(
          (await notices.claim(new Date(t0.getTime() + 30_000), new Date(t0.getTime() + 90_000), 10)).length,
          0,
        );
        const [second] = await notices.claim(
          new Date(t0.getTime() + 61_000),
          new Date(t0.getTime() + 121_000),
          10,
        );
        assert.equal(second?.id, first.id);
        assert.equal(second?.attempts, 2);
        // The first worker's failure comes late: its claim is gone, so it records nothing.
        await notices.markAttemptFailed(first, 'late', new Date(t0.getTime() + 999_000));
        assert.equal((await notices.find(first.id))?.lastError, null);
        await notices.markSent(first.id, new Date(t0.getTime() + 62_000));
        assert.equal((await notices.find(first.id))?.status, 'sent');
      } finally {
        await database.dispose();
      }
    });
  });
}

suite('pglite', false);
suite('postgres', postgresSkip());
