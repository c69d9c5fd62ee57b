import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { defaultDevAccounts } from '../../dev/accounts.js';
import { type DevIdentityProvider, startDevIdentityProvider } from '../../dev/identity-provider.js';
import { OidcClient, type PendingAuthorization } from '../../src/auth/oidc/client.js';
import { OidcError } from '../../src/auth/oidc/errors.js';
import { loadOidcProviders } from '../../src/auth/oidc/settings.js';
import { CookieBrowser, formAction, hiddenInputs } from '../support/cookie-browser.js';
import { signInAtDevProvider } from '../support/dev-login.js';

// The relying party is only simulated: its redirect URI is never fetched, the test reads the
// redirect the provider sends and hands the query to the client, as the callback route does.
const appBase = 'http://127.0.0.1:9';
const redirectUri = `${appBase}/login/oauth2/code/dev`;
const alice = { username: 'alice', password: 'alice' };

let idp: DevIdentityProvider;
let client: OidcClient;

before(async () => {
  idp = await startDevIdentityProvider({
    host: '127.0.0.1',
    port: 0,
    clientBaseUrls: [appBase],
    accounts: [
      ...defaultDevAccounts,
      { username: 'eve', password: 'eve', name: '', email: 'Eve@Example.com', emailVerified: false },
    ],
  });
  client = new OidcClient(loadOidcProviders({ OIDC_PROVIDERS: 'dev', OIDC_DEV_ISSUER: idp.issuer }));
});
after(() => idp.close());

async function login(
  credentials = alice,
  browser = new CookieBrowser(),
): Promise<{ pending: PendingAuthorization; callback: URL; browser: CookieBrowser }> {
  const { url, pending } = await client.startAuthorization('dev', redirectUri);
  const callback = await signInAtDevProvider(browser, url, credentials, redirectUri);
  return { pending, callback, browser };
}

async function rejection(promise: Promise<unknown>): Promise<OidcError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof OidcError, `expected an OidcError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the promise to reject');
}

describe('authorization request', () => {
  test('carries PKCE (S256), state, nonce, the scopes and the redirect URI', async () => {
    const { url, pending } = await client.startAuthorization('dev', redirectUri);
    assert.equal(url.origin, idp.issuer);
    const params = url.searchParams;
    assert.equal(params.get('response_type'), 'code');
    assert.equal(params.get('client_id'), 'books');
    assert.equal(params.get('redirect_uri'), redirectUri);
    assert.equal(params.get('scope'), 'openid email profile');
    assert.equal(params.get('code_challenge_method'), 'S256');
    assert.equal(params.get('state'), pending.state);
    assert.equal(params.get('nonce'), pending.nonce);
    assert.match(params.get('code_challenge') ?? '', /^[A-Za-z0-9_-]{43}$/);
    assert.notEqual(params.get('code_challenge'), pending.codeVerifier);
  });

  test('each login gets fresh state, nonce and verifier', async () => {
    const first = await client.startAuthorization('dev', redirectUri);
    const second = await client.startAuthorization('dev', redirectUri);
    assert.notEqual(first.pending.state, second.pending.state);
    assert.notEqual(first.pending.nonce, second.pending.nonce);
    assert.notEqual(first.pending.codeVerifier, second.pending.codeVerifier);
  });

  test('an unknown provider is a coded error', async () => {
    const error = await rejection(client.startAuthorization('nope', redirectUri));
    assert.equal(error.code, 'OIDC_UNKNOWN_PROVIDER');
  });
});

describe('sign-in and callback', () => {
  test('returns the identity from the ID token and userinfo', async () => {
    const { pending, callback } = await login();
    assert.equal(callback.searchParams.get('state'), pending.state);
    const identity = await client.completeAuthorization(pending, callback.searchParams);
    assert.deepEqual(
      { ...identity, idToken: typeof identity.idToken },
      {
        providerId: 'dev',
        issuer: idp.issuer,
        subject: 'alice',
        email: 'alice@example.com',
        emailVerified: true,
        name: 'Alice Liddell',
        idToken: 'string',
      },
    );
  });

  test('an unverified email is reported as unverified, lower-cased, and a blank name falls back to it', async () => {
    const { pending, callback } = await login({ username: 'eve', password: 'eve' });
    const identity = await client.completeAuthorization(pending, callback.searchParams);
    assert.equal(identity.email, 'eve@example.com');
    assert.equal(identity.emailVerified, false);
    assert.equal(identity.name, 'Eve');
  });

  test('a wrong password shows the form again with an error', async () => {
    const browser = new CookieBrowser();
    const { url } = await client.startAuthorization('dev', redirectUri);
    const form = await browser.follow(url);
    const html = await form.response.text();
    assert.match(html, /<td>alice<\/td><td>alice<\/td>/, 'the dev accounts are listed on the page');
    const retry = await browser.submitForm(formAction(html, form.url), {
      username: 'alice',
      password: 'wrong',
    });
    assert.equal(retry.response.status, 401);
    assert.match(await retry.response.text(), /Unknown username or wrong password/);
  });

  test('a state that does not match the pending login is rejected before any code exchange', async () => {
    const { pending, callback } = await login();
    const error = await rejection(
      client.completeAuthorization({ ...pending, state: 'other' }, callback.searchParams),
    );
    assert.equal(error.code, 'OIDC_STATE_MISMATCH');
    // The code was not spent: the genuine login still completes.
    const identity = await client.completeAuthorization(pending, callback.searchParams);
    assert.equal(identity.subject, 'alice');
  });

  test('a callback without state is rejected', async () => {
    const { pending, callback } = await login();
    const query = new URLSearchParams(callback.searchParams);
    query.delete('state');
    assert.equal((await rejection(client.completeAuthorization(pending, query))).code, 'OIDC_STATE_MISMATCH');
  });

  test('a replayed code is rejected', async () => {
    const { pending, callback } = await login();
    await client.completeAuthorization(pending, callback.searchParams);
    const error = await rejection(client.completeAuthorization(pending, callback.searchParams));
    assert.equal(error.code, 'OIDC_CODE_REJECTED');
    assert.match(error.message, /invalid_grant/);
  });

  test('a wrong PKCE verifier is rejected by the provider', async () => {
    const { pending, callback } = await login();
    const forged = { ...pending, codeVerifier: 'x'.repeat(43) };
    assert.equal(
      (await rejection(client.completeAuthorization(forged, callback.searchParams))).code,
      'OIDC_CODE_REJECTED',
    );
  });

  test('an ID token with another nonce is rejected', async () => {
    const { pending, callback } = await login();
    const error = await rejection(
      client.completeAuthorization({ ...pending, nonce: 'n'.repeat(43) }, callback.searchParams),
    );
    assert.equal(error.code, 'OIDC_CALLBACK_INVALID');
    assert.match(error.message, /nonce/);
  });

  test('an error returned by the provider is reported as a denied authorization', async () => {
    const { pending } = await login();
    const query = new URLSearchParams({ error: 'access_denied', state: pending.state, iss: idp.issuer });
    assert.equal(
      (await rejection(client.completeAuthorization(pending, query))).code,
      'OIDC_AUTHORIZATION_DENIED',
    );
  });
});

describe('RP-initiated logout', () => {
  test('the end-session URL logs out at the provider, which then asks for the password again', async () => {
    const { pending, callback, browser } = await login();
    const identity = await client.completeAuthorization(pending, callback.searchParams);
    const postLogout = `${appBase}/login?logout`;
    const url = await client.endSessionUrl('dev', {
      idTokenHint: identity.idToken,
      postLogoutRedirectUri: postLogout,
    });
    assert.ok(url);
    assert.equal(url.searchParams.get('post_logout_redirect_uri'), postLogout);
    assert.equal(url.searchParams.get('id_token_hint'), identity.idToken);

    // While signed in at the provider, a new login skips the form.
    const sso = await client.startAuthorization('dev', redirectUri);
    assert.ok((await browser.follow(sso.url, { stopAt: redirectUri })).stoppedAt);

    const confirm = await browser.follow(url);
    assert.equal(confirm.response.status, 200);
    const html = await confirm.response.text();
    const done = await browser.submitForm(
      formAction(html, confirm.url),
      { ...hiddenInputs(html), logout: 'yes' },
      appBase,
    );
    assert.equal(done.stoppedAt?.href, `${appBase}/login?logout`);

    const again = await client.startAuthorization('dev', redirectUri);
    const form = await browser.follow(again.url, { stopAt: redirectUri });
    assert.equal(form.stoppedAt, undefined, 'the provider session is gone');
    assert.match(await form.response.text(), /Development sign-in/);
  });
});

describe('discovery', () => {
  test('an unreachable issuer is a coded error naming the setting, and is retried on the next call', async () => {
    const offline = new OidcClient(
      loadOidcProviders({ OIDC_PROVIDERS: 'dev', OIDC_DEV_ISSUER: 'http://127.0.0.1:9/' }),
    );
    for (let attempt = 0; attempt < 2; attempt++) {
      const error = await rejection(offline.startAuthorization('dev', redirectUri));
      assert.equal(error.code, 'OIDC_DISCOVERY_FAILED');
      assert.match(error.message, /OIDC_DEV_ISSUER/);
    }
  });
});
