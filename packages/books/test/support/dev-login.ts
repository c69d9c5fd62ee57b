import assert from 'node:assert/strict';
import { type CookieBrowser, formAction } from './cookie-browser.js';

/**
 * Signs in at the development identity provider, starting from an authorization URL, and returns
 * the callback URL the provider redirects to (not fetched: the caller decides who receives it).
 */
export async function signInAtDevProvider(
  browser: CookieBrowser,
  authorizationUrl: string | URL,
  credentials: { username: string; password: string },
  callbackPrefix: string,
): Promise<URL> {
  const form = await browser.follow(authorizationUrl, { stopAt: callbackPrefix });
  // An existing provider session skips the form and goes straight back.
  if (form.stoppedAt) return form.stoppedAt;
  assert.equal(form.response.status, 200, `expected the sign-in form at ${form.url}`);
  const html = await form.response.text();
  const submitted = await browser.submitForm(formAction(html, form.url), credentials, callbackPrefix);
  if (!submitted.stoppedAt) {
    assert.fail(
      `sign-in as ${credentials.username} did not return to ${callbackPrefix}: ${submitted.response.status}`,
    );
  }
  return submitted.stoppedAt;
}

/**
 * Starts a login at the book service (`/oauth2/authorization/dev`) and signs in at the development
 * provider as `username` (whose password is the username); returns the callback URL, unfetched.
 */
export function signInThroughService(browser: CookieBrowser, app: string, username: string): Promise<URL> {
  return signInAtDevProvider(
    browser,
    `${app}/oauth2/authorization/dev`,
    { username, password: username },
    `${app}/login/oauth2/code/dev`,
  );
}
