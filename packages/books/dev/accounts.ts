/** A person who can sign in at the development identity provider. */
export interface DevAccount {
  /** Login name typed into the form; also the OpenID Connect subject. */
  username: string;
  password: string;
  name: string;
  email: string;
  emailVerified: boolean;
}

/**
 * The quickstart's people. Passwords are printed on the login page on purpose: this provider exists
 * only so a fresh checkout can log in without an external account, and it refuses production mode.
 * `admin@example.com` is in the quickstart's default ADMIN_EMAILS, so `admin` gets ROLE_ADMIN.
 */
export const defaultDevAccounts: readonly DevAccount[] = [
  {
    username: 'alice',
    password: 'alice',
    name: 'Alice Liddell',
    email: 'alice@example.com',
    emailVerified: true,
  },
  { username: 'bob', password: 'bob', name: 'Bob Builder', email: 'bob@example.com', emailVerified: true },
  {
    username: 'admin',
    password: 'admin',
    name: 'Ada Admin',
    email: 'admin@example.com',
    emailVerified: true,
  },
];

/** The standard claims of an account, as returned by the userinfo endpoint. */
export function accountClaims(account: DevAccount): { sub: string; [claim: string]: string | boolean } {
  return {
    sub: account.username,
    name: account.name,
    email: account.email,
    email_verified: account.emailVerified,
  };
}
