import type { Schemas } from '../../contract/schemas.js';

/** The contract's Role. */
export type Role = Schemas['Role'];

// A Record over the contract's union: a role added to the contract fails to compile until it is listed here.
const ROLE_NAMES: Record<Role, true> = { ROLE_USER: true, ROLE_ADMIN: true };
export const ROLES = Object.keys(ROLE_NAMES) as readonly Role[];

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
