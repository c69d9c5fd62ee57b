import { randomBytes } from 'node:crypto';
import type { Clock } from '../clock.js';
import type { Queryable } from '../db/database.js';
import type { User } from '../modules/users/user.js';
import { SessionIdHasher } from './session-id-hash.js';

/** Free-form session attributes (the pending OIDC login, the provider login for logout). */
export interface SessionData {
  [attribute: string]: unknown;
}

export interface Session {
  /** The stored key: an HMAC of the cookie value, never the cookie value itself. */
  idHash: string;
  /** The signed-in user; undefined for a pre-login session that only holds data. */
  user: User | undefined;
  data: SessionData;
  expiresAt: Date;
}

/** Server-side sessions behind the JSESSIONID cookie. */
export interface SessionStore {
  readonly idleTimeoutMs: number;
  /** The stored key of a cookie value. */
  hashId(id: string): string;
  /** Creates a session and returns the new cookie value. */
  create(userId: string | null, data?: SessionData): Promise<string>;
  /** The live session for a cookie value, with its user; undefined when unknown or idle for too long. */
  find(id: string): Promise<Session | undefined>;
  /** Slides the idle timeout forward (the store decides how often it writes). */
  touch(session: Session): Promise<void>;
  saveData(session: Session): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** Removes sessions past their idle timeout; returns how many. */
  deleteExpired(): Promise<number>;
  /** How many sessions have not reached their idle timeout (for metrics). */
  countActive(): Promise<number>;
}

/** Where a session finds its user: the users repository, which owns the users table's row mapping. */
export interface UserLookup {
  findById(id: string): Promise<User | undefined>;
}

interface SessionRow {
  id_hash: string;
  data: SessionData;
  expires_at: Date;
  user_id: string | null;
}

/**
 * Database-backed sessions with an idle timeout. A lookup is one primary-key query, then the user by
 * id; the expiry is pushed forward at most once per `touchIntervalMs`, so most requests write nothing.
 */
export class DatabaseSessionStore implements SessionStore {
  private readonly touchIntervalMs: number;
  private readonly hasher: SessionIdHasher;

  constructor(
    private readonly db: Queryable,
    private readonly users: UserLookup,
    secret: string,
    readonly idleTimeoutMs: number,
    private readonly clock: Clock = Date.now,
  ) {
    this.touchIntervalMs = Math.min(60_000, Math.floor(idleTimeoutMs / 10));
    this.hasher = new SessionIdHasher(secret);
  }

  hashId(id: string): string {
    return this.hasher.hash(id);
  }

  /** Creates a session and returns the new cookie value (256 random bits). */
  async create(userId: string | null, data: SessionData = {}): Promise<string> {
    const id = randomBytes(32).toString('base64url');
    await this.db.query('insert into sessions (id_hash, user_id, data, expires_at) values ($1, $2, $3, $4)', [
      this.hashId(id),
      userId,
      JSON.stringify(data),
      new Date(this.clock() + this.idleTimeoutMs),
    ]);
    return id;
  }

  /** The live session for a cookie value, with its user; undefined when unknown or idle for too long. */
  async find(id: string): Promise<Session | undefined> {
    const [row] = await this.db.query<SessionRow>(
      'select id_hash, user_id, data, expires_at from sessions where id_hash = $1 and expires_at > $2',
      [this.hashId(id), new Date(this.clock())],
    );
    if (row === undefined) return undefined;
    const user = row.user_id === null ? undefined : await this.users.findById(row.user_id);
    return { idHash: row.id_hash, user, data: row.data, expiresAt: row.expires_at };
  }

  /** Slides the idle timeout forward, writing only when the last slide is older than the touch interval. */
  async touch(session: Session): Promise<void> {
    const now = this.clock();
    if (session.expiresAt.getTime() - now > this.idleTimeoutMs - this.touchIntervalMs) return;
    const expiresAt = new Date(now + this.idleTimeoutMs);
    await this.db.query('update sessions set expires_at = $2 where id_hash = $1', [
      session.idHash,
      expiresAt,
    ]);
    session.expiresAt = expiresAt;
  }

  async saveData(session: Session): Promise<void> {
    await this.db.query('update sessions set data = $2 where id_hash = $1', [
      session.idHash,
      JSON.stringify(session.data),
    ]);
  }

  async delete(idHash: string): Promise<void> {
    await this.db.query('delete from sessions where id_hash = $1', [idHash]);
  }

  /** Removes sessions past their idle timeout; returns how many. */
  async deleteExpired(): Promise<number> {
    const rows = await this.db.query('delete from sessions where expires_at <= $1 returning 1', [
      new Date(this.clock()),
    ]);
    return rows.length;
  }

  async countActive(): Promise<number> {
    const [row] = await this.db.query<{ n: number }>(
      'select count(*)::int as n from sessions where expires_at > $1',
      [new Date(this.clock())],
    );
    return row?.n ?? 0;
  }
}
