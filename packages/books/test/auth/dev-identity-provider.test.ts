import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DevIdentityProviderError, startDevIdentityProvider } from '../../dev/identity-provider.js';

test('refuses to start in production mode, saying what to do instead', async () => {
  await assert.rejects(
    startDevIdentityProvider({ port: 0, env: { NODE_ENV: 'production' } }),
    (error: unknown) => {
      assert.ok(error instanceof DevIdentityProviderError);
      assert.equal(error.code, 'DEV_IDP_REFUSED_IN_PRODUCTION');
      assert.match(error.message, /NODE_ENV=production/);
      assert.match(error.message, /OIDC_PROVIDERS/);
      return true;
    },
  );
});

test('publishes discovery for the issuer, with PKCE, userinfo and end_session', async () => {
  const idp = await startDevIdentityProvider({ port: 0 });
  try {
    assert.match(idp.issuer, /^http:\/\/localhost:\d+$/);
    const response = await fetch(`${idp.issuer}/.well-known/openid-configuration`);
    assert.equal(response.status, 200);
    const metadata = (await response.json()) as Record<string, unknown>;
    assert.equal(metadata.issuer, idp.issuer);
    assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
    assert.equal(metadata.userinfo_endpoint, `${idp.issuer}/me`);
    assert.equal(metadata.end_session_endpoint, `${idp.issuer}/session/end`);
  } finally {
    await idp.close();
  }
});

test('a port already in use is a coded error', async () => {
  const idp = await startDevIdentityProvider({ host: '127.0.0.1', port: 0 });
  try {
    const port = Number(new URL(idp.issuer).port);
    await assert.rejects(startDevIdentityProvider({ host: '127.0.0.1', port }), {
      code: 'DEV_IDP_LISTEN_FAILED',
    });
  } finally {
    await idp.close();
  }
});
