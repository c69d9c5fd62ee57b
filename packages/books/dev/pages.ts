import { escapeHtml } from '../src/pages/html.js';
import type { DevAccount } from './accounts.js';

// Every page is self-contained (no fonts, scripts or styles from elsewhere): the provider must work
// offline, and tests may only reach loopback addresses.

const style =
  'body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}' +
  'label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.4rem}button{margin-top:1rem;padding:.5rem 1rem}' +
  'table{border-collapse:collapse;margin-top:1rem}td,th{border:1px solid #ccc;padding:.25rem .5rem}.error{color:#b00020}';

function page(title: string, body: string): string {
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>${style}</style></head><body>${body}</body></html>`;
}

export interface LoginPageInput {
  action: string;
  clientName: string;
  accounts: readonly DevAccount[];
  error?: string;
  username?: string;
}

export function loginPage(input: LoginPageInput): string {
  const rows = input.accounts
    .map(
      (a) =>
        `<tr><td>${escapeHtml(a.username)}</td><td>${escapeHtml(a.password)}</td><td>${escapeHtml(a.email)}${a.emailVerified ? '' : ' (unverified)'}</td></tr>`,
    )
    .join('');
  const error = input.error ? `<p class="error" role="alert">${escapeHtml(input.error)}</p>` : '';
  return page(
    'Sign in: development identity provider',
    `<h1>Development sign-in</h1>
<p>Signing in to <strong>${escapeHtml(input.clientName)}</strong>. This provider is for development only.</p>
${error}
<form method="post" action="${escapeHtml(input.action)}">
<label for="username">Username</label><input id="username" name="username" autocomplete="username" required autofocus value="${escapeHtml(input.username ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button>
</form>
<table><thead><tr><th>Username</th><th>Password</th><th>Email</th></tr></thead><tbody>${rows}</tbody></table>`,
  );
}

/** Confirms RP-initiated logout without a click: the relying party already asked the user. */
export function logoutPage(form: string): string {
  return page(
    'Signing out',
    `<h1>Signing out</h1>${form}<noscript><button type="submit" form="op.logoutForm" name="logout" value="yes">Sign out</button></noscript>
<script>var f=document.getElementById('op.logoutForm');var i=document.createElement('input');i.type='hidden';i.name='logout';i.value='yes';f.appendChild(i);f.submit();</script>`,
  );
}

export function signedOutPage(): string {
  return page(
    'Signed out',
    '<h1>Signed out</h1><p>You are signed out of the development identity provider.</p>',
  );
}

export function errorPage(fields: Record<string, unknown>): string {
  const items = Object.entries(fields)
    .map(([key, value]) => `<dt>${escapeHtml(key)}</dt><dd>${escapeHtml(String(value))}</dd>`)
    .join('');
  return page('Sign-in error', `<h1>Sign-in error</h1><dl>${items}</dl>`);
}
