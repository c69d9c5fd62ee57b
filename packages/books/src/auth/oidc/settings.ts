import { OidcError } from './errors.js';

/** One OpenID Connect provider the service offers for login. */
export interface OidcProviderSettings {
  /** Path segment in `/oauth2/authorization/{id}` and the redirect URI `/login/oauth2/code/{id}`. */
  id: string;
  /** Label on the login page. */
  name: string;
  issuer: URL;
  clientId: string;
  clientSecret: string;
  scopes: string;
}

interface Preset {
  name: string;
  issuer?: string;
  clientId?: string;
  clientSecret?: string;
}

// Google is a plain OIDC issuer found by discovery: only its client id and secret are needed.
const presets: Record<string, Preset> = {
  google: { name: 'Google', issuer: 'https://accounts.google.com' },
};

// The development identity provider (dev/) registers this client; its secret is not a secret.
const devPreset: Preset = {
  name: 'Development sign-in',
  issuer: 'http://localhost:3001',
  clientId: 'books',
  clientSecret: 'books-dev-secret',
};

const defaultScopes = 'openid email profile';
const providerIdPattern = /^[a-z][a-z0-9-]{0,31}$/;
const loopbackHosts = new Set(['localhost', '127.0.0.1', '[::1]']);

function invalid(message: string): OidcError {
  return new OidcError('OIDC_CONFIG_INVALID', message);
}

/** `OIDC_<ID>_<SUFFIX>`, with dashes in the id turned into underscores. */
export function providerVariable(id: string, suffix: string): string {
  return `OIDC_${id.toUpperCase().replace(/-/g, '_')}_${suffix}`;
}

function parseIssuer(id: string, raw: string): URL {
  const variable = providerVariable(id, 'ISSUER');
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalid(`invalid ${variable} '${raw}': expected an absolute https URL`);
  }
  // Plain http is only acceptable where nobody can listen in: a provider on this machine.
  const insecureAllowed = url.protocol === 'http:' && loopbackHosts.has(url.hostname);
  if (url.protocol !== 'https:' && !insecureAllowed) {
    throw invalid(
      `invalid ${variable} '${raw}': use https (plain http is accepted only for localhost issuers)`,
    );
  }
  return url;
}

function parseScopes(id: string, raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return defaultScopes;
  const scopes = raw.split(/[\s,]+/).filter(Boolean);
  if (!scopes.includes('openid')) {
    throw invalid(`invalid ${providerVariable(id, 'SCOPES')} '${raw}': the scopes must include openid`);
  }
  return scopes.join(' ');
}

function providerSettings(id: string, env: NodeJS.ProcessEnv, production: boolean): OidcProviderSettings {
  const preset = id === 'dev' && !production ? devPreset : presets[id];
  const read = (suffix: string): string | undefined => {
    const value = env[providerVariable(id, suffix)]?.trim();
    return value === '' ? undefined : value;
  };
  const required = (suffix: string, fallback: string | undefined): string => {
    const value = read(suffix) ?? fallback;
    if (value === undefined) {
      throw invalid(
        `${providerVariable(id, suffix)} is required for the OIDC provider '${id}' listed in OIDC_PROVIDERS`,
      );
    }
    return value;
  };
  return {
    id,
    name: read('NAME') ?? preset?.name ?? id,
    issuer: parseIssuer(id, required('ISSUER', preset?.issuer)),
    clientId: required('CLIENT_ID', preset?.clientId),
    clientSecret: required('CLIENT_SECRET', preset?.clientSecret),
    scopes: parseScopes(id, read('SCOPES')),
  };
}

/**
 * Reads the login providers from the environment: `OIDC_PROVIDERS` lists their ids (default `dev`
 * outside production, none in production), and `OIDC_<ID>_ISSUER`, `_CLIENT_ID`, `_CLIENT_SECRET`, `_SCOPES` and `_NAME`
 * describe each one. `google` and (outside production) `dev` have defaults for what is not secret.
 */
export function loadOidcProviders(env: NodeJS.ProcessEnv = process.env): OidcProviderSettings[] {
  const production = env.NODE_ENV === 'production';
  // Production has no default: the service then runs without login, and says so at startup.
  const listed = env.OIDC_PROVIDERS?.trim() || (production ? '' : 'dev');
  if (listed === '') return [];
  const ids = listed.split(',').map((id) => id.trim().toLowerCase());
  const seen = new Set<string>();
  return ids.map((id) => {
    if (!providerIdPattern.test(id)) {
      throw invalid(
        `invalid provider id '${id}' in OIDC_PROVIDERS: use lowercase letters, digits and dashes, starting with a letter`,
      );
    }
    if (seen.has(id)) throw invalid(`provider id '${id}' appears twice in OIDC_PROVIDERS`);
    seen.add(id);
    return providerSettings(id, env, production);
  });
}
