-- The list's totalElements without count(*) over every book on every request: one row kept exact by
-- statement-level triggers in the same transaction as each insert, delete or truncate on books, so a
-- reader sees the total that matches the books its snapshot sees. The cost is on writers: concurrent
-- book inserts and deletes queue on this row until they commit (book writes are admin-only and rare).
create table book_count (
  single_row boolean primary key default true check (single_row),
  total bigint not null check (total >= 0)
);

-- Writers wait until this migration commits, so the starting total cannot miss a concurrent insert.
lock table books in share row exclusive mode;
insert into book_count (total) select count(*) from books;

create or replace function book_count_add_inserted() returns trigger language plpgsql as $$
begin
  update book_count set total = total + (select count(*) from inserted_books);
  return null;
end;
$$;

create or replace function book_count_subtract_deleted() returns trigger language plpgsql as $$
begin
  update book_count set total = total - (select count(*) from deleted_books);
  return null;
end;
$$;

create or replace function book_count_reset() returns trigger language plpgsql as $$
begin
  update book_count set total = 0;
  return null;
end;
$$;

create trigger books_counted_on_insert after insert on books
  referencing new table as inserted_books for each statement execute function book_count_add_inserted();
create trigger books_counted_on_delete after delete on books
  referencing old table as deleted_books for each statement execute function book_count_subtract_deleted();
create trigger books_counted_on_truncate after truncate on books
  for each statement execute function book_count_reset();
