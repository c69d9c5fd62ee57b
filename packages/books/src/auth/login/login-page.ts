import { htmlPage } from '../../pages/layout.js';
import type { OidcProviderSummary } from '../oidc/client.js';
import { escapeHtml } from './html.js';

export interface LoginPageState {
  providers: readonly OidcProviderSummary[];
  /** `?logout` was present: the user just signed out. */
  loggedOut: boolean;
  /** A login attempt failed; shown as is (already user-facing). */
  error?: string | undefined;
  /** Who is signed in already, if anyone (the page then offers signing out too). */
  signedInAs?: string | undefined;
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
  return htmlPage({
    title: 'Sign in: book collection',
    signedInAs: state.signedInAs,
    body: `<h1>Sign in to the book collection</h1>${notice}${error}<p>Sign in with:</p>${body}`,
  });
}
