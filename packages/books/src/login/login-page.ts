import type { OidcProviderSummary } from '../auth/oidc/client.js';
import { html } from '../pages/html.js';
import { htmlPage, type Viewer } from '../pages/layout.js';

export interface LoginPageState {
  providers: readonly OidcProviderSummary[];
  /** `?logout` was present: the user just signed out. */
  loggedOut: boolean;
  /** A login attempt failed; shown as is (already user-facing). */
  error?: string | undefined;
  /** Who is signed in already, if anyone (the page then offers signing out too). */
  viewer?: Viewer | undefined;
}

/** `GET /login`: one link per provider, like Spring Security's generated login page. */
export function loginPage(state: LoginPageState): string {
  const links = state.providers.map(
    (p) =>
      html`<li><a class="button" href="/oauth2/authorization/${encodeURIComponent(p.id)}">${p.name}</a></li>`,
  );
  const providers =
    state.providers.length > 0
      ? html`<p>Sign in with:</p><ul class="providers">${links}</ul>`
      : html`<p>No login provider is configured (OIDC_PROVIDERS).</p>`;
  return htmlPage({
    title: 'Sign in',
    viewer: state.viewer,
    flash: state.loggedOut ? { kind: 'success', text: 'You have been signed out.' } : undefined,
    body: html`<section class="card narrow"><h1>Sign in to the book collection</h1>
${state.error && html`<p class="flash flash-error" role="alert">${state.error}</p>`}${providers}</section>`,
  });
}
