import type { Queryable } from '../../db/database.js';
import type { Role, User } from './user.js';

export interface LoginIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
}

export interface UserRow {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  email_verified: boolean;
  name: string | null;
  role: Role;
}

export const USER_COLUMNS = 'id, issuer, subject, email, email_verified, name, role';

export function userFromRow(row: UserRow): User {
  return {
    id: row.id,
    issuer: row.issuer,
    subject: row.subject,
    email: row.email,
    emailVerified: row.email_verified,
    name: row.name,
    role: row.role,
  };
}

export class UsersRepository {
  /** @param adminEmails lower-cased verified emails that get ROLE_ADMIN at login (ADMIN_EMAILS) */
  constructor(
    private readonly db: Queryable,
    private readonly adminEmails: readonly string[],
  ) {}

  /**
   * Records a login: creates the user for (issuer, subject) or refreshes its email and name.
   * New users get ROLE_USER. A verified email listed in ADMIN_EMAILS grants ROLE_ADMIN; the list only
   * promotes, so an admin removed from it keeps the role until `books users demote`.
   */
  async upsertFromLogin(identity: LoginIdentity): Promise<User> {
    const grantsAdmin =
      identity.emailVerified &&
      identity.email !== null &&
      this.adminEmails.includes(identity.email.trim().toLowerCase());
    const [row] = await this.db.query<UserRow>(
      `insert into users (issuer, subject, email, email_verified, name, role)
       values ($1, $2, $3, $4, $5, case when $6::boolean then 'ROLE_ADMIN' else 'ROLE_USER' end)
       on conflict (issuer, subject) do update set
         email = excluded.email,
         email_verified = excluded.email_verified,
         name = excluded.name,
         role = case when $6::boolean then 'ROLE_ADMIN' else users.role end,
         updated_at = now()
       returning ${USER_COLUMNS}`,
      [identity.issuer, identity.subject, identity.email, identity.emailVerified, identity.name, grantsAdmin],
    );
    if (row === undefined) throw new Error('upsert returned no row');
    return userFromRow(row);
  }

  /** Sets the role of every user with this email (case-insensitive); returns how many users changed. */
  async setRoleByEmail(email: string, role: Role): Promise<number> {
    const rows = await this.db.query<{ id: string }>(
      'update users set role = $2, updated_at = now() where lower(email) = lower($1) returning id',
      [email.trim(), role],
    );
    return rows.length;
  }

  async findById(id: string): Promise<User | undefined> {
    const [row] = await this.db.query<UserRow>(`select ${USER_COLUMNS} from users where id = $1`, [id]);
    return row === undefined ? undefined : userFromRow(row);
  }

  /** The users with these ids (for pages that name the people behind a list of reservations). */
  async findByIds(ids: readonly string[]): Promise<User[]> {
    if (ids.length === 0) return [];
    const rows = await this.db.query<UserRow>(
      `select ${USER_COLUMNS} from users where id = any($1::uuid[])`,
      [[...ids]],
    );
    return rows.map(userFromRow);
  }
}
