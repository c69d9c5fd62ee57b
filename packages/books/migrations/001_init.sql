-- Users come from OpenID Connect logins: one row per (issuer, subject).
create table users (
  id uuid primary key default gen_random_uuid(),
  issuer text not null,
  subject text not null,
  email text,
  email_verified boolean not null default false,
  name text,
  role text not null default 'ROLE_USER' check (role in ('ROLE_USER', 'ROLE_ADMIN')),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  unique (issuer, subject)
);
create index users_email_lower on users (lower(email));

create table books (
  id uuid primary key default gen_random_uuid(),
  title text not null check (length(title) between 1 and 255),
  author text not null check (length(author) between 1 and 255),
  synopsis text not null check (length(synopsis) between 1 and 5000),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
-- Backs the default order (title, then id) and the other sortable columns.
create index books_title_id on books (title, id);
create index books_author_id on books (author, id);

-- Deleting a book with ACTIVE reservations is refused by the service (409); its cancelled ones go with it.
create table reservations (
  id uuid primary key default gen_random_uuid(),
  book_id uuid not null references books (id) on delete cascade,
  user_id uuid not null references users (id) on delete cascade,
  status text not null default 'ACTIVE' check (status in ('ACTIVE', 'CANCELLED')),
  reserved_at timestamptz not null default now(),
  cancelled_at timestamptz,
  check ((status = 'CANCELLED') = (cancelled_at is not null))
);
-- The invariant itself: at most one ACTIVE reservation per user and book, even under concurrent requests.
create unique index reservations_one_active_per_user_book on reservations (book_id, user_id) where status = 'ACTIVE';
create index reservations_user_reserved_at on reservations (user_id, reserved_at);
create index reservations_reserved_at on reservations (reserved_at, id);

-- Server-side sessions behind the JSESSIONID cookie. The key is an HMAC of the cookie value, so a copy of
-- this table cannot be replayed as cookies. user_id is null until login (the session then holds only data
-- such as the URL to return to).
create table sessions (
  id_hash text primary key,
  user_id uuid references users (id) on delete cascade,
  data jsonb not null default '{}'::jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index sessions_expires_at on sessions (expires_at);
