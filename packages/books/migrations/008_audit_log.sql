-- The audit log: one row per state change of a book or a reservation, written by triggers in the
-- transaction that makes the change, so no code path can change a state without its event (and an outbox
-- row can later be written the same way, in the same transaction). Who did it comes from the writing
-- transaction's `books.actor` setting (a user id; unset: the system), when from its `books.now` setting
-- (the service's injected clock; unset: the database's). Promotion, expiry and overdue are always the
-- system's, even when a user's request caused them (a cancel that promotes the next in line).
-- No foreign keys: the log outlives the books, reservations and users it names.
create table audit_events (
  id bigint generated always as identity primary key,
  at timestamptz not null,
  kind text not null check (kind in (
    'book.created', 'book.updated', 'book.deleted',
    'reservation.reserved', 'reservation.promoted', 'reservation.cancelled', 'reservation.collected',
    'reservation.returned', 'reservation.expired', 'loan.renewed', 'loan.overdue')),
  -- The user who did it; null for the system.
  actor_id uuid,
  book_id uuid not null,
  reservation_id uuid,
  -- The user whose reservation changed.
  holder_id uuid,
  -- What changed: `from` and `to` states, due dates, changed book fields.
  change jsonb not null
);
-- Newest first, overall and by book, holder, actor or kind (the GET /audit filters).
create index audit_events_book on audit_events (book_id, id);
create index audit_events_holder on audit_events (holder_id, id) where holder_id is not null;
create index audit_events_actor on audit_events (actor_id, id) where actor_id is not null;
create index audit_events_kind on audit_events (kind, id);

-- Append-only: no row is changed or removed, by any statement.
create or replace function audit_events_append_only() returns trigger language plpgsql as $$
begin
  raise exception 'audit_events is append-only: % is not allowed', tg_op using errcode = 'insufficient_privilege';
end;
$$;
create trigger audit_events_not_updated before update or delete on audit_events
  for each row execute function audit_events_append_only();
create trigger audit_events_not_truncated before truncate on audit_events
  for each statement execute function audit_events_append_only();

create or replace function audit_actor() returns uuid language sql stable as $$
  select nullif(current_setting('books.actor', true), '')::uuid
$$;
create or replace function audit_time() returns timestamptz language sql stable as $$
  select coalesce(nullif(current_setting('books.now', true), '')::timestamptz, now())
$$;
-- Timestamps in the change as the API writes them (ISO 8601, UTC, milliseconds), whatever the TimeZone.
create or replace function audit_iso(t timestamptz) returns text language sql immutable as $$
  select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

create or replace function reservations_audited() returns trigger language plpgsql as $$
declare
  kind text;
  change jsonb;
begin
  if tg_op = 'INSERT' then
    kind := 'reservation.reserved';
    change := jsonb_build_object('to', new.status);
  elsif new.status <> old.status then
    kind := case new.status
      when 'READY' then 'reservation.promoted'
      when 'EXPIRED' then 'reservation.expired'
      when 'CANCELLED' then 'reservation.cancelled'
      when 'COLLECTED' then 'reservation.collected'
      when 'RETURNED' then 'reservation.returned'
    end;
    change := jsonb_build_object('from', old.status, 'to', new.status);
    if new.status = 'READY' then
      change := change || jsonb_build_object('pickupDeadline', audit_iso(new.pickup_deadline));
    elsif new.status = 'COLLECTED' then
      change := change || jsonb_build_object('dueAt', audit_iso(new.due_at));
    elsif new.status = 'EXPIRED' then
      change := change || jsonb_build_object('pickupDeadline', audit_iso(new.pickup_deadline));
    end if;
  elsif new.renewals <> old.renewals then
    kind := 'loan.renewed';
    change := jsonb_build_object('fromDueAt', audit_iso(old.due_at), 'toDueAt', audit_iso(new.due_at),
                                 'renewals', new.renewals);
  elsif old.overdue_at is null and new.overdue_at is not null then
    kind := 'loan.overdue';
    change := jsonb_build_object('dueAt', audit_iso(new.due_at));
  else
    return null;
  end if;
  insert into audit_events (at, kind, actor_id, book_id, reservation_id, holder_id, change)
  values (audit_time(),
          kind,
          case when kind in ('reservation.promoted', 'reservation.expired', 'loan.overdue') then null
               else audit_actor() end,
          new.book_id, new.id, new.user_id, change);
  return null;
end;
$$;
create trigger reservations_audited after insert or update on reservations
  for each row execute function reservations_audited();

create or replace function books_audited() returns trigger language plpgsql as $$
declare
  change jsonb := '{}'::jsonb;
begin
  if tg_op = 'INSERT' then
    insert into audit_events (at, kind, actor_id, book_id, change)
    values (audit_time(), 'book.created', audit_actor(), new.id,
            jsonb_build_object('title', new.title, 'author', new.author, 'copies', new.copies));
  elsif tg_op = 'DELETE' then
    insert into audit_events (at, kind, actor_id, book_id, change)
    values (audit_time(), 'book.deleted', audit_actor(), old.id, jsonb_build_object('title', old.title));
  else
    if new.title <> old.title then
      change := change || jsonb_build_object('title', jsonb_build_object('from', old.title, 'to', new.title));
    end if;
    if new.author <> old.author then
      change := change || jsonb_build_object('author', jsonb_build_object('from', old.author, 'to', new.author));
    end if;
    if new.synopsis <> old.synopsis then
      change := change || jsonb_build_object('synopsis', jsonb_build_object('from', old.synopsis, 'to', new.synopsis));
    end if;
    if new.copies <> old.copies then
      change := change || jsonb_build_object('copies', jsonb_build_object('from', old.copies, 'to', new.copies));
    end if;
    if change <> '{}'::jsonb then
      insert into audit_events (at, kind, actor_id, book_id, change)
      values (audit_time(), 'book.updated', audit_actor(), new.id, change);
    end if;
  end if;
  return null;
end;
$$;
-- Only the fields a caller sets: the counters (held, waiting) and the version move with reservations,
-- whose own events say why.
create trigger books_audited after insert or delete or update of title, author, synopsis, copies on books
  for each row execute function books_audited();

-- The overdue sweep's probe: loans past their due date not yet recorded as overdue.
create index reservations_loans_not_yet_overdue on reservations (due_at)
  where status = 'COLLECTED' and overdue_at is null;
