import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import ical from 'node-ical';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type Driver, startTestService, type TestService } from '../support/service.js';
import { type ReceivedMail, startTestSmtpServer, type TestSmtpServer } from '../support/smtp-server.js';
import { createTestSession, type TestSession } from '../support/test-sessions.js';

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;

interface NoticeBody {
  id: string;
  kind: string;
  status: string;
  attempts: number;
  nextAttemptAt: string;
  lastError: string | null;
  messageId: string;
  subjectAt: string;
  reservationId: string;
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 15_000) {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

/**
 * Notices over real HTTP and a real SMTP server on loopback: each kind is queued in the transaction of
 * its state change (or once by the reminder sweep), delivered through nodemailer with its text and a
 * stable Message-ID, retried with backoff while the server refuses, marked failed after the last attempt
 * and resent by an admin; settings turn kinds off; the calendar feed parses and its token rotates.
 */
export function noticesSuite(driver: Driver, skip: false | string = false) {
  describe(`notices (${driver})`, { skip }, () => {
    let smtp: TestSmtpServer;
    let service: TestService;
    let api: ApiClient;
    let admin: TestSession;

    before(async () => {
      smtp = await startTestSmtpServer();
      service = await startTestService(driver, {
        env: {
          SMTP_URL: smtp.url,
          NOTICE_POLL_INTERVAL: '20ms',
          NOTICE_RETRY_BASE: '10s',
          NOTICE_RETRY_MAX: '40s',
          NOTICE_MAX_ATTEMPTS: '4',
          EXPIRY_SWEEP_INTERVAL: '1s',
          PICKUP_DAYS: '3',
          LOAN_DAYS: '21',
          DUE_SOON_DAYS: '3',
          SESSION_IDLE_TIMEOUT: '10000h',
        },
      });
      api = new ApiClient(service.url);
      admin = await createTestSession(service, { role: 'ROLE_ADMIN' });
    });
    after(async () => {
      await service?.close();
      await smtp?.close();
    });

    const noticesOf = async (user: TestSession): Promise<NoticeBody[]> => {
      const response = await api.get('/notices?size=100', { session: admin });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return (response.body._embedded.notices as (NoticeBody & { userId: string })[]).filter(
        (notice) => notice.userId === user.user.id,
      );
    };
    const mailsTo = (user: TestSession): ReceivedMail[] =>
      smtp.received.filter((mail) => mail.to.includes(user.user.email ?? '?'));
    const mail = (user: TestSession, subject: string) =>
      until(`a mail '${subject}' to ${user.user.email}`, () =>
        mailsTo(user).find((received) => received.subject === subject),
      );
    /** Moves the clock and waits for a sweep that started after the move (the sweep runs every second). */
    const advanceAndSweep = async (ms: number) => {
      service.clock.advance(ms);
      await sleep(2_200);
    };

    test('each kind is sent once, with its text and a stable Message-ID, from the transaction or the sweep that caused it', async () => {
      const alice = await createTestSession(service, { name: 'Alice' });
      const bob = await createTestSession(service, { name: 'Bob' });
      const book = await createBook(api, admin, { title: 'The Dispossessed', copies: 1 });
      const held = await reserve(api, alice, book.id);
      assert.equal(held.status, 'READY');
      const deadline = new Date(held.pickupDeadline);
      const deadlineText = `${deadline.toISOString().slice(0, 16).replace('T', ' ')} UTC`;

      const ready = await mail(alice, 'Ready for pickup: The Dispossessed');
      assert.match(ready.text, /^Hello Alice,/);
      assert.match(
        ready.text,
        new RegExp(`"The Dispossessed" is held for you\\. Please pick it up by ${deadlineText}`),
      );
      assert.match(ready.from, /library@books\.local/);
      // Marked sent once the server's 250 reached the worker, just after the server kept the mail.
      const readyNotice = await until('the ready notice marked sent', async () =>
        (await noticesOf(alice)).find((n) => n.kind === 'pickup.ready' && n.status === 'sent'),
      );
      assert.equal(ready.messageId, `<notice-${readyNotice.id}@books.local>`);
      assert.equal(readyNotice.messageId, ready.messageId);
      assert.equal(readyNotice.status, 'sent');
      assert.equal(readyNotice.subjectAt, held.pickupDeadline);

      // A day before the deadline the sweep reminds; sweeping again queues nothing more.
      await advanceAndSweep(2 * DAY_MS + MINUTE_MS);
      const reminder = await mail(alice, 'Pick up by tomorrow: The Dispossessed');
      assert.match(reminder.text, new RegExp(`waiting until ${deadlineText}, a day from now`));
      await advanceAndSweep(MINUTE_MS);

      const waiting = await reserve(api, bob, book.id);
      assert.equal(waiting.status, 'WAITING');
      // Past the deadline: Alice's copy expires (her notice) and goes to Bob (his).
      await advanceAndSweep(DAY_MS);
      const expired = await mail(alice, 'Not picked up: The Dispossessed');
      assert.match(
        expired.text,
        new RegExp(`was not picked up by ${deadlineText}, so your reservation has expired`),
      );
      await mail(bob, 'Ready for pickup: The Dispossessed');

      const collected = await api.post(`/books/${book.id}/reservations/${waiting.id}/collect`, {
        session: admin,
      });
      assert.equal(collected.status, 200, JSON.stringify(collected.body));
      const dueText = `${collected.body.dueAt.slice(0, 16).replace('T', ' ')} UTC`;
      await advanceAndSweep(18 * DAY_MS + MINUTE_MS);
      const dueSoon = await mail(bob, 'Due soon: The Dispossessed');
      assert.match(dueSoon.text, new RegExp(`"The Dispossessed" is due back on ${dueText}\\. Renew it`));
      await advanceAndSweep(3 * DAY_MS);
      const overdue = await mail(bob, 'Overdue: The Dispossessed');
      assert.match(overdue.text, new RegExp(`was due back on ${dueText} and is now overdue`));
      await advanceAndSweep(MINUTE_MS);

      // One notice and one mail per kind, each mail carrying its notice's Message-ID.
      const kinds = (user: TestSession) => mailsTo(user).map((m) => m.subject.split(':')[0]);
      assert.deepEqual(kinds(alice), ['Ready for pickup', 'Pick up by tomorrow', 'Not picked up']);
      // Bob collected his copy at once: no pickup reminder.
      assert.deepEqual(kinds(bob), ['Ready for pickup', 'Due soon', 'Overdue']);
      for (const user of [alice, bob]) {
        // Each mail arrived; its notice is marked sent once the worker has the server's answer.
        const notices = await until('every notice marked sent', async () => {
          const all = await noticesOf(user);
          return all.every((n) => n.status === 'sent') ? all : undefined;
        });
        assert.equal(notices.length, mailsTo(user).length);
        assert.deepEqual(
          notices.map((n) => n.messageId).sort(),
          mailsTo(user)
            .map((m) => m.messageId)
            .sort(),
        );
        assert.ok(notices.every((n) => n.status === 'sent' && n.attempts === 1));
      }
    });

    test('with SMTP_URL set there is no development mailbox', async () => {
      const grace = await createTestSession(service);
      const page = await api.get('/web/dev/mailbox', { session: grace, headers: { accept: 'text/html' } });
      assert.equal(page.status, 404);
    });

    test('a kind turned off is recorded as skipped and not sent', async () => {
      const carol = await createTestSession(service);
      const off = await api.put('/me/notice-settings', {
        session: carol,
        body: { disabledKinds: ['pickup.ready'] },
      });
      assert.equal(off.status, 200, JSON.stringify(off.body));
      assert.deepEqual(off.body.disabledKinds, ['pickup.ready']);
      const book = await createBook(api, admin, { title: 'Quiet', copies: 1 });
      await reserve(api, carol, book.id);
      const [notice] = await noticesOf(carol);
      assert.equal(notice?.kind, 'pickup.ready');
      assert.equal(notice?.status, 'skipped');
      await sleep(300);
      assert.equal(mailsTo(carol).length, 0);
      const bad = await api.put('/me/notice-settings', {
        session: carol,
        body: { disabledKinds: ['loan.lost'] },
      });
      assert.equal(bad.status, 400);
    });

    test('retries with exponential backoff while the server refuses, and one mail once it accepts', async () => {
      const dave = await createTestSession(service);
      smtp.refuseWith = 451;
      try {
        const book = await createBook(api, admin, { title: 'Retry', copies: 1 });
        const startedAt = service.clock.now();
        await reserve(api, dave, book.id);
        const waits: number[] = [];
        for (let attempt = 1; attempt <= 3; attempt++) {
          const notice = await until(`attempt ${attempt}`, async () => {
            const [n] = await noticesOf(dave);
            // Finished: a claim counts the attempt at once, its failure then moves nextAttemptAt ahead.
            const finished =
              n !== undefined &&
              n.attempts === attempt &&
              n.lastError !== null &&
              Date.parse(n.nextAttemptAt) > service.clock.now();
            return finished ? n : undefined;
          });
          assert.equal(notice.status, 'pending');
          assert.match(notice.lastError ?? '', /451/);
          waits.push(Date.parse(notice.nextAttemptAt) - service.clock.now());
          // Not retried before its time.
          await sleep(200);
          assert.equal((await noticesOf(dave))[0]?.attempts, attempt);
          service.clock.advance(Date.parse(notice.nextAttemptAt) - service.clock.now());
        }
        assert.deepEqual(waits, [10_000, 20_000, 40_000]);
        assert.ok(service.clock.now() - startedAt === 70_000);
        smtp.refuseWith = undefined;
        await mail(dave, 'Ready for pickup: Retry');
        const [sent] = await noticesOf(dave);
        assert.equal(sent?.status, 'sent');
        assert.equal(sent?.attempts, 4);
        assert.equal(mailsTo(dave).length, 1);
      } finally {
        smtp.refuseWith = undefined;
      }
    });

    test('a notice that keeps failing is failed, listed for admins, and resent with the same Message-ID', async () => {
      const erin = await createTestSession(service);
      smtp.refuseWith = 554;
      let failed: NoticeBody;
      try {
        const book = await createBook(api, admin, { title: 'Refused', copies: 1 });
        await reserve(api, erin, book.id);
        failed = await until('the last attempt', async () => {
          const [n] = await noticesOf(erin);
          if (n?.status === 'failed') return n;
          if (n !== undefined && n.lastError !== null) service.clock.advance(40_000);
          return undefined;
        });
      } finally {
        smtp.refuseWith = undefined;
      }
      assert.equal(failed.attempts, 4);
      const metrics = await (
        await fetch(`${service.url}/actuator/prometheus`, { headers: { cookie: admin.cookie } })
      ).text();
      assert.ok(
        Number(/books_notices\{status="failed"\} (\d+)/.exec(metrics)?.[1]) >= 1,
        'failed notices are counted',
      );
      assert.match(failed.lastError ?? '', /554/);
      const list = await api.get('/notices?status=failed', { session: admin });
      assert.equal(list.status, 200);
      assert.ok(list.body._embedded.notices.some((n: NoticeBody) => n.id === failed.id));
      const forbidden = await api.get('/notices?status=failed', { session: erin });
      assert.equal(forbidden.status, 403);
      const notResent = await api.post(`/notices/${failed.id}/resend`, { session: erin });
      assert.equal(notResent.status, 403);

      const resent = await api.post(`/notices/${failed.id}/resend`, { session: admin });
      assert.equal(resent.status, 200, JSON.stringify(resent.body));
      assert.equal(resent.body.status, 'pending');
      assert.equal(resent.body.attempts, 0);
      const received = await mail(erin, 'Ready for pickup: Refused');
      assert.equal(received.messageId, failed.messageId);
      await until('the resent notice marked sent', async () =>
        (await noticesOf(erin)).find((n) => n.id === failed.id && n.status === 'sent'),
      );
      // A sent notice may be resent again; a pending one may not.
      const again = await api.post(`/notices/${failed.id}/resend`, { session: admin });
      assert.equal(again.status, 200);
      const pending = await api.post(`/notices/${failed.id}/resend`, { session: admin });
      if (pending.status !== 200) assert.equal(pending.body.code, 'NOTICE_ALREADY_PENDING');
      const missing = await api.post('/notices/00000000-0000-4000-8000-000000000000/resend', {
        session: admin,
      });
      assert.equal(missing.status, 404);
    });

    test('the calendar feed parses, lists pickup deadlines and due dates, and a wrong or rotated token is 404', async () => {
      const frank = await createTestSession(service);
      const held = await reserve(api, frank, (await createBook(api, admin, { title: 'Held', copies: 1 })).id);
      const lentBook = await createBook(api, admin, { title: 'Lent', copies: 1 });
      const lent = await reserve(api, frank, lentBook.id);
      const collected = await api.post(`/books/${lentBook.id}/reservations/${lent.id}/collect`, {
        session: admin,
      });
      assert.equal(collected.status, 200);

      const settings = await api.get('/me/notice-settings', { session: frank });
      assert.equal(settings.status, 200);
      const url = new URL(settings.body.calendarUrl);
      assert.match(url.pathname, /^\/calendar\/[A-Za-z0-9_-]+\.ics$/);
      const feed = await api.get(url.pathname, { headers: { accept: 'text/calendar' } });
      assert.equal(feed.status, 200);
      assert.match(feed.headers.get('content-type') ?? '', /^text\/calendar/);
      const events = Object.values(ical.sync.parseICS(feed.body)).filter((c) => c?.type === 'VEVENT');
      const byStart = events
        .map((event) => [String((event as ical.VEvent).summary), (event as ical.VEvent).start.toISOString()])
        .sort();
      // iCalendar times have whole seconds.
      const seconds = (iso: string) => `${iso.slice(0, 19)}.000Z`;
      assert.deepEqual(byStart, [
        ['Pick up "Held"', seconds(held.pickupDeadline)],
        ['Return "Lent"', seconds(collected.body.dueAt)],
      ]);

      const wrong = await api.get(`/calendar/${'0'.repeat(32)}${'A'.repeat(43)}.ics`, {
        headers: { accept: 'text/calendar' },
      });
      assert.equal(wrong.status, 404);
      const rotated = await api.post('/me/calendar-token', { session: frank });
      assert.equal(rotated.status, 200);
      assert.notEqual(rotated.body.calendarUrl, settings.body.calendarUrl);
      const old = await api.get(url.pathname, { headers: { accept: 'text/calendar' } });
      assert.equal(old.status, 404);
      const fresh = await api.get(new URL(rotated.body.calendarUrl).pathname, {
        headers: { accept: 'text/calendar' },
      });
      assert.equal(fresh.status, 200);
      // The feed is another user's only with their token: Frank's token shows nothing of anyone else's.
      assert.doesNotMatch(fresh.body, /Dispossessed/);
    });
  });
}
