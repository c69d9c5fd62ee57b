import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { OidcError } from '../../src/auth/oidc/errors.js';
import { withLocalEnv } from '../../src/auth/oidc/local-env.js';
import { loadOidcProviders } from '../../src/auth/oidc/settings.js';

function configError(env: NodeJS.ProcessEnv, message: RegExp): void {
  assert.throws(
    () => loadOidcProviders(env),
    (error: unknown) => {
      assert.ok(error instanceof OidcError);
      assert.equal(error.code, 'OIDC_CONFIG_INVALID');
      assert.match(error.message, message);
      return true;
    },
  );
}

test('outside production the development provider is the default', () => {
  const [dev, ...rest] = loadOidcProviders({});
  assert.equal(rest.length, 0);
  assert.deepEqual(dev && { ...dev, issuer: dev.issuer.href }, {
    id: 'dev',
    name: 'Development sign-in',
    issuer: 'http://localhost:3001/',
    clientId: 'books',
    clientSecret: 'books-dev-secret',
    scopes: 'openid email profile',
  });
});

test('Google needs only its client id and secret', () => {
  const [google] = loadOidcProviders({
    OIDC_PROVIDERS: 'google',
    OIDC_GOOGLE_CLIENT_ID: 'id.apps.googleusercontent.com',
    OIDC_GOOGLE_CLIENT_SECRET: 's3cret',
  });
  assert.equal(google?.issuer.href, 'https://accounts.google.com/');
  assert.equal(google?.name, 'Google');
  assert.equal(google?.clientId, 'id.apps.googleusercontent.com');
});

test('any provider is described by its variables; ids with dashes use underscores', () => {
  const providers = loadOidcProviders({
    OIDC_PROVIDERS: 'dev, my-keycloak',
    OIDC_MY_KEYCLOAK_ISSUER: 'https://sso.example.org/realms/books',
    OIDC_MY_KEYCLOAK_CLIENT_ID: 'books',
    OIDC_MY_KEYCLOAK_CLIENT_SECRET: 'x',
    OIDC_MY_KEYCLOAK_SCOPES: 'openid,email',
    OIDC_MY_KEYCLOAK_NAME: 'Company SSO',
  });
  assert.deepEqual(
    providers.map((p) => [p.id, p.name, p.scopes]),
    [
      ['dev', 'Development sign-in', 'openid email profile'],
      ['my-keycloak', 'Company SSO', 'openid email'],
    ],
  );
});

test('production has no default providers and no defaults for the development provider', () => {
  assert.deepEqual(loadOidcProviders({ NODE_ENV: 'production' }), []);
  configError({ NODE_ENV: 'production', OIDC_PROVIDERS: 'dev' }, /OIDC_DEV_ISSUER is required/);
});

test('bad settings are named in the error', () => {
  configError({ OIDC_PROVIDERS: 'google' }, /OIDC_GOOGLE_CLIENT_ID is required/);
  configError({ OIDC_PROVIDERS: 'Bad_Id!' }, /invalid provider id 'bad_id!'/);
  configError({ OIDC_PROVIDERS: 'dev,dev' }, /appears twice/);
  configError({ OIDC_DEV_ISSUER: 'not a url' }, /invalid OIDC_DEV_ISSUER 'not a url'/);
  configError({ OIDC_DEV_ISSUER: 'http://idp.example.org' }, /use https/);
  configError({ OIDC_DEV_SCOPES: 'email profile' }, /must include openid/);
});

test('.env.local fills in what the environment does not set', () => {
  const dir = mkdtempSync(join(tmpdir(), 'books-env-'));
  try {
    const file = join(dir, '.env.local');
    writeFileSync(
      file,
      'OIDC_PROVIDERS=google\nOIDC_GOOGLE_CLIENT_ID=from-file\nOIDC_GOOGLE_CLIENT_SECRET="quoted secret"\n',
    );
    const env = withLocalEnv(file, { OIDC_GOOGLE_CLIENT_ID: 'from-env' });
    assert.equal(env.OIDC_GOOGLE_CLIENT_ID, 'from-env');
    assert.equal(env.OIDC_GOOGLE_CLIENT_SECRET, 'quoted secret');
    assert.equal(loadOidcProviders(env)[0]?.id, 'google');
    const unchanged = { A: '1' };
    assert.equal(withLocalEnv(join(dir, 'missing'), unchanged), unchanged);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
