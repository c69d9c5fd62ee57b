import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ApiClient } from '../support/client.js';
import { createBook, reserve } from '../support/fixtures-api.js';
import { type LoginEnvironment, loginSession, startLoginEnvironment } from '../support/login-environment.js';
import type { Driver } from '../support/service.js';
import type { TestSession } from '../support/test-sessions.js';

const DAY_MS = 86_400_000;
const LOAN_DAYS = 14;

type Target = { bookId: string; id: string };

/**
 * Loans over real HTTP on the service's injected clock: collecting starts a loan (LOAN_DAYS=14 here,
 * MAX_RENEWALS=2), renewals by the holder or an admin and the rules that refuse them, overdue loans and
 * the admin's overdue list, and the return that ends a loan.
 */
export function loansSuite(driver: Driver, skip: false | string = false) {
  describe(`loans (${driver})`, { skip }, () => {
    let env: LoginEnvironment;
    let api: ApiClient;
    let alice: TestSession;
    let bob: TestSession;
    let admin: TestSession;

    before(async () => {
      env = await startLoginEnvironment(driver, {
        LOAN_DAYS: String(LOAN_DAYS),
        MAX_RENEWALS: '2',
        SESSION_IDLE_TIMEOUT: '10000h',
      });
      api = new ApiClient(env.app);
      alice = await loginSession(env, 'alice');
      bob = await loginSession(env, 'bob');
      admin = await loginSession(env, 'admin');
    });
    after(() => env?.close());

    const path = (r: Target) => `/books/${r.bookId}/reservations/${r.id}`;
    const read = async (who: TestSession, r: Target) => {
      const response = await api.get(path(r), { session: who });
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };
    const post = (who: TestSession, r: Target, transition: string) =>
      api.post(`${path(r)}/${transition}`, { session: who });
    const ok = async (who: TestSession, r: Target, transition: string) => {
      const response = await post(who, r, transition);
      assert.equal(response.status, 200, JSON.stringify(response.body));
      return response.body;
    };
    const events = async (bookId: string) =>
      (await api.get(`/audit?bookId=${bookId}&size=1`, { session: admin })).body.page.totalElements;
    const refused = async (who: TestSession, r: Target, transition: string, code: string) => {
      const before = await read(admin, r);
      const recorded = await events(r.bookId);
      const response = await post(who, r, transition);
      assert.equal(response.status, 409, JSON.stringify(response.body));
      assert.equal(response.body.code, code);
      const afterwards = await read(admin, r);
      assert.deepEqual(
        [afterwards.status, afterwards.dueAt, afterwards.renewals],
        [before.status, before.dueAt, before.renewals],
        'a refused renewal changes nothing',
      );
      assert.equal(await events(r.bookId), recorded, 'and leaves no audit event');
    };
    /** A loan of alice's: a new one-copy book, reserved and collected now. */
    const loan = async (title: string) => {
      const book = await createBook(api, admin, { title, copies: 1 });
      const reservation = await reserve(api, alice, book.id);
      return ok(admin, reservation, 'collect');
    };

    test('collecting starts a loan due LOAN_DAYS later, renewable MAX_RENEWALS times', async () => {
      const lent = await loan('Loan starts');
      assert.equal(lent.status, 'COLLECTED');
      assert.equal(Date.parse(lent.collectedAt), env.service.clock.nowMs);
      assert.equal(Date.parse(lent.dueAt) - Date.parse(lent.collectedAt), LOAN_DAYS * DAY_MS);
      assert.deepEqual([lent.renewals, lent.maxRenewals, lent.overdue, lent.daysOverdue], [0, 2, false, 0]);
      const ready = await reserve(api, bob, (await createBook(api, admin, { title: 'Not lent' })).id);
      assert.deepEqual(
        [ready.dueAt, ready.renewals, ready.maxRenewals, ready.overdue, ready.daysOverdue],
        [null, 0, 0, false, 0],
        'no loan before collection',
      );
    });

    test('the holder and an admin renew, each moving the due date by LOAN_DAYS; a third is refused', async () => {
      const lent = await loan('Renewals');
      assert.ok(lent._links.renew, 'the admin may renew');
      assert.ok((await read(alice, lent))._links.renew, 'the holder may renew');
      assert.equal(
        (await api.get(path(lent), { session: bob })).status,
        403,
        'not even read by another user',
      );
      const stranger = await post(bob, lent, 'renew');
      assert.equal(stranger.status, 403, 'another user may not renew');
      assert.equal(stranger.body.code, 'NOT_RESERVATION_OWNER');

      env.service.clock.advance(DAY_MS);
      const once = await ok(alice, lent, 'renew');
      const [renewal] = (await api.get(`/audit?bookId=${lent.bookId}&kind=loan.renewed`, { session: admin }))
        .body._embedded.events;
      assert.deepEqual(
        [renewal.actor.userId, renewal.holderId, renewal.reservationId, renewal.at],
        [alice.user.id, alice.user.id, lent.id, new Date(env.service.clock.nowMs).toISOString()],
        'the renewal is in the audit log: who, whose, when',
      );
      assert.equal(Date.parse(once.dueAt) - Date.parse(lent.dueAt), LOAN_DAYS * DAY_MS, 'from the due date');
      assert.equal(once.renewals, 1);
      assert.equal(once.status, 'COLLECTED');
      const twice = await ok(admin, lent, 'renew');
      assert.equal(Date.parse(twice.dueAt) - Date.parse(lent.dueAt), 2 * LOAN_DAYS * DAY_MS);
      assert.equal(twice.renewals, 2);
      assert.equal(twice._links.renew, undefined, 'no renewal left, no link');
      assert.ok(twice._links.return);
      await refused(alice, lent, 'renew', 'RENEWAL_LIMIT_REACHED');
      await refused(admin, lent, 'renew', 'RENEWAL_LIMIT_REACHED');
    });

    test('no renewal while someone waits for the book; once the queue is gone it is allowed again', async () => {
      const lent = await loan('Wanted');
      const waiting = await reserve(api, bob, lent.bookId);
      assert.equal(waiting.status, 'WAITING');
      assert.ok((await read(alice, lent))._links.renew, 'the queue is found out by the renewal itself');
      await refused(alice, lent, 'renew', 'RENEWAL_BOOK_WAITED_FOR');
      await refused(admin, lent, 'renew', 'RENEWAL_BOOK_WAITED_FOR');
      const cancelled = await api.delete(path(waiting), { session: bob });
      assert.equal(cancelled.status, 200);
      assert.equal((await ok(alice, lent, 'renew')).renewals, 1);
    });

    test('a loan past its due date is overdue, by started days; it is not renewed but is returned', async () => {
      const lent = await loan('Overdue');
      const queued = await reserve(api, bob, lent.bookId);
      env.service.clock.advance(LOAN_DAYS * DAY_MS - 1000);
      const almost = await read(alice, lent);
      assert.deepEqual([almost.overdue, almost.daysOverdue], [false, 0], 'a second before the due date');
      env.service.clock.advance(1000);
      const due = await read(alice, lent);
      assert.deepEqual([due.overdue, due.daysOverdue], [true, 1], 'at the due date');
      assert.equal(due._links.renew, undefined);
      env.service.clock.advance(3 * DAY_MS + 1);
      const late = await read(admin, lent);
      assert.deepEqual([late.status, late.overdue, late.daysOverdue], ['COLLECTED', true, 4]);
      await refused(alice, lent, 'renew', 'RENEWAL_LOAN_OVERDUE');
      // Overdue comes before the queue: the holder is told to return the book.
      await refused(admin, lent, 'renew', 'RENEWAL_LOAN_OVERDUE');

      const returned = await ok(admin, lent, 'return');
      assert.equal(returned.status, 'RETURNED');
      assert.deepEqual([returned.overdue, returned.daysOverdue], [false, 0], 'the loan has ended');
      assert.equal(returned.dueAt, late.dueAt, 'the due date stays on record');
      assert.equal((await read(bob, queued)).status, 'READY', 'the return promotes the waiting list');
    });

    test('admins list overdue loans with ?overdue=true; a user sees only their own', async () => {
      const late = await loan('Listed late');
      env.service.clock.advance(LOAN_DAYS * DAY_MS + 1);
      const fresh = await loan('Listed fresh');
      const bobsBook = await createBook(api, admin, { title: 'Bob late', copies: 1 });
      const bobs = await ok(admin, await reserve(api, bob, bobsBook.id), 'collect');
      env.service.clock.advance(LOAN_DAYS * DAY_MS - 1000);
      // Now `late` is overdue by a loan period, `fresh` and `bobs` are one second short of their due date.
      const ids = (body: { _embedded: { reservations: { id: string; overdue: boolean }[] } }) =>
        body._embedded.reservations.map((r) => r.id);
      const all = await api.get('/reservations?overdue=true&size=100&sort=dueAt,asc', { session: admin });
      assert.equal(all.status, 200);
      assert.ok(ids(all.body).includes(late.id));
      assert.ok(!ids(all.body).includes(fresh.id) && !ids(all.body).includes(bobs.id));
      for (const r of all.body._embedded.reservations) assert.equal(r.overdue, true);
      assert.match(all.body._links.self.href, /overdue=true/);
      const dues = all.body._embedded.reservations.map((r: { dueAt: string }) => Date.parse(r.dueAt));
      assert.deepEqual(
        dues,
        [...dues].sort((a, b) => a - b),
        'sorted by due date',
      );

      env.service.clock.advance(1000);
      const now = await api.get('/reservations?overdue=true&size=100', { session: admin });
      assert.ok([late.id, fresh.id, bobs.id].every((id) => ids(now.body).includes(id)));
      const own = await api.get('/reservations?overdue=true&size=100', { session: bob });
      assert.deepEqual(ids(own.body), [bobs.id], "bob's own overdue loan only");
      const notOverdue = await api.get('/reservations?overdue=false&size=100', { session: admin });
      assert.ok(!ids(notOverdue.body).some((id) => [late.id, fresh.id, bobs.id].includes(id)));
      const others = await api.get(`/reservations?overdue=true&userId=${bobs.userId}`, { session: alice });
      assert.equal(others.status, 403);
    });

    test('renewing anything but a loan (WAITING, READY, RETURNED, CANCELLED, EXPIRED) is 409 RENEWAL_NOT_ON_LOAN', async () => {
      const book = await createBook(api, admin, { title: 'Not a loan', copies: 1 });
      const ready = await reserve(api, alice, book.id);
      const waiting = await reserve(api, bob, book.id);
      await refused(alice, ready, 'renew', 'RENEWAL_NOT_ON_LOAN');
      await refused(admin, ready, 'renew', 'RENEWAL_NOT_ON_LOAN');
      await refused(bob, waiting, 'renew', 'RENEWAL_NOT_ON_LOAN');
      const lent = await ok(admin, ready, 'collect');
      await ok(admin, lent, 'return');
      await refused(alice, lent, 'renew', 'RENEWAL_NOT_ON_LOAN');
      const cancelled = await api.delete(path(waiting), { session: bob });
      assert.equal(cancelled.body.status, 'CANCELLED');
      await refused(admin, waiting, 'renew', 'RENEWAL_NOT_ON_LOAN');

      const lapsed = await reserve(api, bob, (await createBook(api, admin, { title: 'Lapsed' })).id);
      env.service.clock.advance(4 * DAY_MS);
      assert.equal((await read(bob, lapsed)).status, 'EXPIRED');
      await refused(bob, lapsed, 'renew', 'RENEWAL_NOT_ON_LOAN');
    });
  });
}
