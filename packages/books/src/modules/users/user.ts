export type Role = 'ROLE_USER' | 'ROLE_ADMIN';

export const ROLES: readonly Role[] = ['ROLE_USER', 'ROLE_ADMIN'];

export interface User {
  id: string;
  issuer: string;
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  role: Role;
}

/** ROLE_ADMIN includes every ROLE_USER permission. */
export function hasRole(user: Pick<User, 'role'>, needed: Role): boolean {
  return user.role === needed || user.role === 'ROLE_ADMIN';
}

export function isAdmin(user: Pick<User, 'role'>): boolean {
  return user.role === 'ROLE_ADMIN';
}
