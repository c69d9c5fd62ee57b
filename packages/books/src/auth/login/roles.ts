export type Role = 'ROLE_USER' | 'ROLE_ADMIN';

/**
 * The role to store after a login. A new user starts as ROLE_USER; an existing one keeps the stored
 * role. ADMIN_EMAILS only ever promotes, and only for an email the provider marked verified: anyone
 * can type an unverified address. Demotion is the `books users demote` command's job.
 */
export function roleAtLogin(
  storedRole: Role | undefined,
  identity: { email: string | undefined; emailVerified: boolean },
  adminEmails: readonly string[],
): Role {
  const role = storedRole ?? 'ROLE_USER';
  if (role === 'ROLE_ADMIN') return role;
  const email = identity.email?.toLowerCase();
  const listed = email !== undefined && identity.emailVerified && adminEmails.includes(email);
  return listed ? 'ROLE_ADMIN' : role;
}
