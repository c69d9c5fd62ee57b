// TEST-ONLY: mints a signed-in session without an identity provider. It lives under test/, which the
// build (tsconfig.build.json: src and bin) never compiles, and it refuses to run when NODE_ENV=production.
// test/test-sessions-absent.test.ts proves both.
import { randomBytes, randomUUID } from 'node:crypto';
import { CSRF_COOKIE, SESSION_COOKIE } from '../../src/auth/cookies.js';
import type { Role, User } from '../../src/modules/users/user.js';
import type { TestService } from './service.js';

export const TEST_ISSUER = 'urn:books:test-sessions';

export interface TestSession {
  user: User;
  /** The Cookie header: JSESSIONID plus an XSRF-TOKEN cookie. */
  cookie: string;
  /** The X-XSRF-TOKEN header value matching the cookie. */
  xsrf: string;
}

export interface TestUser {
  role?: Role;
  email?: string;
  name?: string;
}

/** Creates (or reuses, by email) a user with the given role and returns a live session for it. */
export async function createTestSession(
  { app, users }: Pick<TestService, 'app' | 'users'>,
  who: TestUser = {},
): Promise<TestSession> {
  if (process.env.NODE_ENV === 'production') {
    throw new Error('createTestSession is test-only and refuses to run when NODE_ENV=production');
  }
  const email = who.email ?? `user-${randomUUID()}@example.test`;
  const upserted = await users.upsertFromLogin({
    issuer: TEST_ISSUER,
    subject: email,
    email,
    emailVerified: true,
    name: who.name ?? email.split('@')[0] ?? email,
  });
  const role = who.role ?? 'ROLE_USER';
  if (upserted.role !== role) await users.setRoleByEmail(email, role);
  const user = { ...upserted, role };
  const sessionId = await app.sessions.store.create(user.id);
  const xsrf = randomBytes(32).toString('base64url');
  return { user, cookie: `${SESSION_COOKIE}=${sessionId}; ${CSRF_COOKIE}=${xsrf}`, xsrf };
}
