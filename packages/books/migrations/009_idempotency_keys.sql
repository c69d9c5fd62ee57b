-- Idempotency-Key (draft-ietf-httpapi-idempotency-key-header) on POST /books and POST …/reservations:
-- one row per user and key. `fingerprint` is a digest of the operation, its path and its body; the
-- answer (`status`, the headers a replay repeats, `body`) is null while the first request is in flight.
-- A key is answered from here for 24 h (`expires_at`); an in-flight key whose request never finished
-- (its process died) may be taken over after `lease_until`.
create table idempotency_keys (
  user_id uuid not null references users (id) on delete cascade,
  key text not null check (length(key) between 1 and 255),
  fingerprint text not null,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  lease_until timestamptz not null,
  status integer check (status between 100 and 599),
  headers jsonb,
  body text,
  primary key (user_id, key),
  -- An answer is whole or absent.
  check ((status is null) = (headers is null) and (status is null) = (body is null))
);
create index idempotency_keys_expires_at on idempotency_keys (expires_at);
