-- Optimistic concurrency (ETag, If-Match): every book and reservation row carries a version, 0 when
-- inserted and one more at every update of the row, whoever makes it. A trigger rather than the
-- service's statements, so no writer can forget it: the reservation trigger of migration 003 updates
-- books.held and books.waiting, so every reservation change that alters a book's `available` or
-- `waiting` also moves that book's version. Conditional writes compare it (`where id = $1 and version = $2`).
alter table books add column version integer not null default 0;
alter table reservations add column version integer not null default 0;

create or replace function bump_row_version() returns trigger language plpgsql as $$
begin
  new.version := old.version + 1;
  return new;
end;
$$;

create trigger books_version_bumped before update on books
  for each row execute function bump_row_version();
create trigger reservations_version_bumped before update on reservations
  for each row execute function bump_row_version();
