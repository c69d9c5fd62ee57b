-- Collecting a reservation starts a loan: the copy is due back at `due_at` (collection + LOAN_DAYS). The
-- holder or an admin may renew it `max_renewals` times (MAX_RENEWALS when it was lent; the loan keeps the
-- rules it was lent under), each renewal moving `due_at` by LOAN_DAYS, never while someone waits for the
-- book nor once the loan is overdue. `overdue_at` is set by the overdue sweep when it records a loan as
-- overdue; whether a loan is overdue is read from `due_at` and the clock, so it never lags the sweep.
alter table reservations
  add column due_at timestamptz,
  add column renewals integer not null default 0,
  add column max_renewals integer not null default 0,
  add column renewed_at timestamptz,
  add column overdue_at timestamptz;

-- Existing loans (COLLECTED, and the RETURNED ones for their history): due 21 days (the LOAN_DAYS
-- default) after their collection, with the default 2 renewals, none used.
update reservations set due_at = collected_at + interval '21 days', max_renewals = 2
  where collected_at is not null;
-- A loan that was due before this migration ran is overdue; the sweep records it at its next run.

alter table reservations add constraint reservations_loan_follows_collection check (
  (due_at is not null) = (collected_at is not null)
  and due_at > collected_at
  and renewals between 0 and max_renewals
  and max_renewals >= 0
  and (renewed_at is not null) = (renewals > 0)
  and (overdue_at is null or overdue_at = due_at)
);

-- A loan's due date and renewal count change only by a renewal: one more renewal, of a COLLECTED loan
-- that stays COLLECTED, made before its due date, to a later due date, while nobody waits for the book.
-- The service's statement checks the same and explains a refusal; this is the invariant whatever writes.
create or replace function reservations_renewal_rules() returns trigger language plpgsql as $$
begin
  if old.due_at is null then
    if new.renewals <> 0 or new.renewed_at is not null then
      raise exception 'a loan starts with no renewals' using errcode = 'check_violation';
    end if;
    return new;
  end if;
  if new.due_at is distinct from old.due_at or new.renewals <> old.renewals
     or new.max_renewals <> old.max_renewals or new.renewed_at is distinct from old.renewed_at then
    if not (old.status = 'COLLECTED' and new.status = 'COLLECTED'
            and new.renewals = old.renewals + 1 and new.max_renewals = old.max_renewals
            and new.due_at > old.due_at and new.renewed_at < old.due_at) then
      raise exception 'reservation %: a loan is renewed once at a time, while COLLECTED and before it is due', old.id
        using errcode = 'check_violation';
    end if;
    if (select waiting from books where id = new.book_id) > 0 then
      raise exception 'reservation %: a loan is not renewed while someone waits for the book', old.id
        using errcode = 'check_violation';
    end if;
  end if;
  return new;
end;
$$;

create trigger reservations_renewal_checked before update on reservations
  for each row execute function reservations_renewal_rules();

-- Overdue loans by due date: the admin's overdue list and the overdue sweep's probe.
create index reservations_loans_due on reservations (due_at) where status = 'COLLECTED';
