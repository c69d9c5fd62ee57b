-- Notices by email: an outbox. A notice is written in the transaction of the state change that causes it
-- (by the trigger below, as the audit events of migration 008), or by the reminder sweep for the ones time
-- causes; a delivery worker sends the pending ones and marks them. The table is the log of notices.
--
-- Per-user settings: the notice kinds a user turned off, and the generation of their calendar feed's
-- token (rotating the token moves it on, so every earlier link stops working).
create table notice_settings (
  user_id uuid primary key references users (id) on delete cascade,
  disabled_kinds text[] not null default '{}',
  calendar_generation integer not null default 0
);

create table notices (
  id uuid primary key default gen_random_uuid(),
  kind text not null check (kind in (
    'pickup.ready', 'pickup.reminder', 'pickup.expired', 'loan.due_soon', 'loan.overdue')),
  -- The recipient: the holder of the reservation. No foreign keys: the log outlives what it names.
  user_id uuid not null,
  reservation_id uuid not null,
  book_id uuid not null,
  book_title text not null,
  -- The date the notice is about: the pickup deadline (pickup.*) or the due date (loan.*).
  subject_at timestamptz not null,
  created_at timestamptz not null,
  -- pending: to be sent (again); sent; failed: gave up after the last attempt (an admin may resend it);
  -- skipped: the user turned this kind off when it was due (kept, so the log says why no mail went).
  status text not null default 'pending' check (status in ('pending', 'sent', 'failed', 'skipped')),
  attempts integer not null default 0 check (attempts >= 0),
  -- A pending notice is sent from this time on (retries back off by moving it).
  next_attempt_at timestamptz not null,
  -- A worker that claimed the notice holds it until then; after that (the worker died) another takes it.
  claimed_until timestamptz,
  sent_at timestamptz,
  last_error text,
  check ((status = 'sent') = (sent_at is not null)),
  -- Once per reservation, kind and date: a sweep run twice, or by two replicas, queues nothing twice;
  -- a renewal's new due date is a new date, so it gets its own reminder.
  unique (reservation_id, kind, subject_at)
);
-- The worker's claim: pending notices by the time they are due.
create index notices_pending on notices (next_attempt_at) where status = 'pending';
create index notices_by_status on notices (status, created_at);

-- Queues one notice for a reservation's holder, unless this very notice was queued before; `skipped` when
-- the holder turned its kind off.
create or replace function notice_queue(p_kind text, p_reservation uuid, p_holder uuid, p_book uuid,
                                        p_subject timestamptz) returns void language sql as $$
  insert into notices (kind, user_id, reservation_id, book_id, book_title, subject_at, created_at, status,
                       next_attempt_at)
  select p_kind, p_holder, p_reservation, p_book, b.title, p_subject, audit_time(),
         case when exists (select 1 from notice_settings s
                           where s.user_id = p_holder and p_kind = any (s.disabled_kinds))
              then 'skipped' else 'pending' end,
         audit_time()
  from books b where b.id = p_book
  on conflict (reservation_id, kind, subject_at) do nothing
$$;

-- The notices a state change causes, in its transaction: a copy held for pickup, a held copy not picked
-- up in time, a loan recorded overdue (by the overdue sweep).
create or replace function reservations_noticed() returns trigger language plpgsql as $$
begin
  if new.status = 'READY' and old.status <> 'READY' then
    perform notice_queue('pickup.ready', new.id, new.user_id, new.book_id, new.pickup_deadline);
  elsif new.status = 'EXPIRED' and old.status = 'READY' then
    perform notice_queue('pickup.expired', new.id, new.user_id, new.book_id, new.pickup_deadline);
  elsif old.overdue_at is null and new.overdue_at is not null then
    perform notice_queue('loan.overdue', new.id, new.user_id, new.book_id, new.due_at);
  end if;
  return null;
end;
$$;
create trigger reservations_noticed after update on reservations
  for each row execute function reservations_noticed();
