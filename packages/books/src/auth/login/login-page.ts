import type { OidcProviderSummary } from '../oidc/client.js';
import { escapeHtml } from './html.js';

export interface LoginPageState {
  providers: readonly OidcProviderSummary[];
  /** `?logout` was present: the user just signed out. */
  loggedOut: boolean;
  /** A login attempt failed; shown as is (already user-facing). */
  error?: string | undefined;
}

/** `GET /login`: one link per provider, like Spring Security's generated login page. */
export function loginPage(state: LoginPageState): string {
  const links = state.providers
    .map(
      (p) => `<li><a href="/oauth2/authorization/${encodeURIComponent(p.id)}">${escapeHtml(p.name)}</a></li>`,
    )
    .join('');
  const notice = state.loggedOut ? '<p role="status">You have been signed out.</p>' : '';
  const error = state.error ? `<p role="alert">${escapeHtml(state.error)}</p>` : '';
  const body =
    state.providers.length > 0
      ? `<ul>${links}</ul>`
      : '<p>No login provider is configured (OIDC_PROVIDERS).</p>';
  return `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Sign in: book collection</title>
<style>body{font-family:system-ui,sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}li{margin:.5rem 0}</style></head>
<body><h1>Sign in to the book collection</h1>${notice}${error}<p>Sign in with:</p>${body}</body></html>`;
}
