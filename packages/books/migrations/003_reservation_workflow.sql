-- Reservations become a library workflow: a book has copies, a reservation waits in a queue, is held
-- for pickup (READY), is collected and returned, or ends CANCELLED or EXPIRED.

alter table books add column copies integer not null default 1 check (copies >= 0);
-- Kept by the trigger below, in the same transaction as each reservation write: `held` counts READY and
-- COLLECTED reservations, `waiting` counts WAITING ones. The check is the invariant itself: no more
-- copies held or lent than the book has, whatever the code above it does.
alter table books add column held integer not null default 0 check (held >= 0);
alter table books add column waiting integer not null default 0 check (waiting >= 0);
alter table books add constraint books_held_within_copies check (held <= copies);

alter table reservations drop constraint reservations_status_check;
alter table reservations drop constraint reservations_check;
alter table reservations alter column status drop default;
drop index reservations_one_active_per_user_book;

-- First come, first served: the queue is ordered by this number, taken under the book's row lock, so
-- the order is the order in which reservations were admitted. Existing rows are numbered in reservation order.
create sequence reservations_queue_order;
alter table reservations add column queue_order bigint;
update reservations r set queue_order = ordered.n
  from (select id, row_number() over (order by reserved_at, id) as n from reservations) ordered
  where r.id = ordered.id;
select setval('reservations_queue_order', coalesce((select max(queue_order) from reservations), 0) + 1, false);
alter table reservations alter column queue_order set default nextval('reservations_queue_order');
alter table reservations alter column queue_order set not null;
alter sequence reservations_queue_order owned by reservations.queue_order;

alter table reservations
  add column ready_at timestamptz,
  add column pickup_deadline timestamptz,
  add column collected_at timestamptz,
  add column returned_at timestamptz,
  add column expired_at timestamptz;

-- ACTIVE reservations become READY (the first `copies` of each book, in reservation order) or WAITING.
-- The pickup deadline of the migrated READY ones is 3 days (the PICKUP_DAYS default) from the migration.
update reservations r set
    status = case when ranked.n <= ranked.copies then 'READY' else 'WAITING' end,
    ready_at = case when ranked.n <= ranked.copies then now() end,
    pickup_deadline = case when ranked.n <= ranked.copies then now() + interval '3 days' end
  from (
    select res.id, b.copies, row_number() over (partition by res.book_id order by res.queue_order) as n
    from reservations res join books b on b.id = res.book_id
    where res.status = 'ACTIVE'
  ) ranked
  where r.id = ranked.id;

alter table reservations add constraint reservations_status_known
  check (status in ('WAITING', 'READY', 'COLLECTED', 'RETURNED', 'CANCELLED', 'EXPIRED'));
-- Each state carries the timestamps of the steps that led to it, and no others.
alter table reservations add constraint reservations_timestamps_follow_status check (
  (ready_at is not null) = (status in ('READY', 'COLLECTED', 'RETURNED', 'EXPIRED')
                            or (status = 'CANCELLED' and ready_at is not null))
  and (pickup_deadline is not null) = (ready_at is not null)
  and (collected_at is not null) = (status in ('COLLECTED', 'RETURNED'))
  and (returned_at is not null) = (status = 'RETURNED')
  and (cancelled_at is not null) = (status = 'CANCELLED')
  and (expired_at is not null) = (status = 'EXPIRED')
);
-- One open (WAITING, READY or COLLECTED) reservation per user and book, even under concurrent requests.
create unique index reservations_one_open_per_user_book on reservations (book_id, user_id)
  where status in ('WAITING', 'READY', 'COLLECTED');
-- The queue of a book, and the READY reservations by deadline (what expiry looks for).
create index reservations_waiting_queue on reservations (book_id, queue_order) where status = 'WAITING';
create index reservations_ready_deadline on reservations (pickup_deadline) where status = 'READY';

update books b set
    held = (select count(*) from reservations r where r.book_id = b.id and r.status in ('READY', 'COLLECTED')),
    waiting = (select count(*) from reservations r where r.book_id = b.id and r.status = 'WAITING');

create or replace function reservations_count_per_book() returns trigger language plpgsql as $$
declare
  held_change integer := 0;
  waiting_change integer := 0;
begin
  if tg_op in ('UPDATE', 'DELETE') then
    held_change := held_change - (old.status in ('READY', 'COLLECTED'))::integer;
    waiting_change := waiting_change - (old.status = 'WAITING')::integer;
  end if;
  if tg_op in ('INSERT', 'UPDATE') then
    held_change := held_change + (new.status in ('READY', 'COLLECTED'))::integer;
    waiting_change := waiting_change + (new.status = 'WAITING')::integer;
  end if;
  if held_change <> 0 or waiting_change <> 0 then
    update books set held = held + held_change, waiting = waiting + waiting_change
      where id = coalesce(new.book_id, old.book_id);
  end if;
  return null;
end;
$$;

create trigger reservations_counted_per_book after insert or update of status or delete on reservations
  for each row execute function reservations_count_per_book();
