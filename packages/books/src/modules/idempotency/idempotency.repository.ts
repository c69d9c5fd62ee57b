import type { Database } from '../../db/database.js';

/** The first answer given under a key, as it is replayed. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** What claiming a key found. */
export type Claim =
  | { state: 'claimed' }
  | { state: 'answered'; answer: StoredAnswer }
  | { state: 'in_flight' }
  | { state: 'other_request' };

interface KeyRow {
  fingerprint: string;
  status: number | null;
  headers: Record<string, string> | null;
  body: string | null;
}

/** Idempotency keys per user (migration 009). */
export class IdempotencyRepository {
  constructor(
    private readonly db: Database,
    /** How long a key answers with its first answer (24 h). */
    private readonly retainMs: number,
    /** How long a request holds its key before a retry may take it over (its process died). */
    private readonly leaseMs: number,
  ) {}

  /**
   * Claims `key` for a request with `fingerprint` in one statement, so of concurrent requests exactly
   * one claims a new key (or one whose retention ran out, or whose in-flight lease ran out under the same
   * request); the others then find it in flight, answered, or taken by another request.
   */
  async claim(userId: string, key: string, fingerprint: string, now: Date): Promise<Claim> {
    const claimed = await this.db.query(
      `insert into idempotency_keys (user_id, key, fingerprint, created_at, expires_at, lease_until)
       values ($1, $2, $3, $4, $5, $6)
       on conflict (user_id, key) do update
         set fingerprint = excluded.fingerprint, created_at = excluded.created_at,
             expires_at = excluded.expires_at, lease_until = excluded.lease_until,
             status = null, headers = null, body = null
         where idempotency_keys.expires_at <= $4
            or (idempotency_keys.status is null and idempotency_keys.lease_until <= $4
                and idempotency_keys.fingerprint = excluded.fingerprint)
       returning 1`,
      [
        userId,
        key,
        fingerprint,
        now,
        new Date(now.getTime() + this.retainMs),
        new Date(now.getTime() + this.leaseMs),
      ],
    );
    if (claimed.length > 0) return { state: 'claimed' };
    const [row] = await this.db.query<KeyRow>(
      'select fingerprint, status, headers, body from idempotency_keys where user_id = $1 and key = $2',
      [userId, key],
    );
    // Released between the two statements (its request failed on the server's side): retry later.
    if (row === undefined) return { state: 'in_flight' };
    if (row.fingerprint !== fingerprint) return { state: 'other_request' };
    if (row.status === null || row.headers === null || row.body === null) return { state: 'in_flight' };
    return { state: 'answered', answer: { status: row.status, headers: row.headers, body: row.body } };
  }

  /** Records the answer of the request that claimed the key. */
  async answer(userId: string, key: string, answer: StoredAnswer): Promise<void> {
    await this.db.query(
      'update idempotency_keys set status = $3, headers = $4, body = $5 where user_id = $1 and key = $2',
      [userId, key, answer.status, JSON.stringify(answer.headers), answer.body],
    );
  }

  /** Gives the key up (the request failed on the server's side), so a retry runs the request again. */
  async release(userId: string, key: string): Promise<void> {
    await this.db.query('delete from idempotency_keys where user_id = $1 and key = $2 and status is null', [
      userId,
      key,
    ]);
  }

  /** Deletes the keys past their retention; returns how many. */
  async purgeExpired(now: Date): Promise<number> {
    const rows = await this.db.query('delete from idempotency_keys where expires_at <= $1 returning 1', [
      now,
    ]);
    return rows.length;
  }
}
