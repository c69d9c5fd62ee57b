import { timingSafeEqual } from 'node:crypto';
import * as oidc from 'openid-client';
import { OidcError } from './errors.js';
import { type OidcProviderSettings, providerVariable } from './settings.js';

/** What the service keeps in the (pre-login) session between redirect and callback. */
export interface PendingAuthorization {
  providerId: string;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/** The person the provider vouched for. */
export interface OidcIdentity {
  providerId: string;
  issuer: string;
  subject: string;
  email: string | undefined;
  /** True only when the provider says so explicitly (`email_verified: true`). */
  emailVerified: boolean;
  name: string;
  /** Kept for `id_token_hint` at RP-initiated logout. */
  idToken: string | undefined;
}

export interface OidcProviderSummary {
  id: string;
  name: string;
}

const requestTimeoutSeconds = 10;

function sameSecret(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
}

/** The display name, as the source project picks it: the name, unless blank or all digits, else the email's local part. */
function displayName(name: string | undefined, email: string | undefined, subject: string): string {
  if (name !== undefined && !/^\d+$/.test(name)) return name;
  return email?.split('@')[0] || subject;
}

function describe(error: unknown): string {
  if (error instanceof oidc.ResponseBodyError)
    return `${error.error}: ${error.error_description ?? error.message}`;
  if (!(error instanceof Error)) return String(error);
  // openid-client wraps oauth4webapi's error, whose message names the offending claim.
  return error.cause instanceof Error ? `${error.message} (${error.cause.message})` : error.message;
}

/**
 * The OpenID Connect relying party, one per configured provider: discovery (lazy, retried after a
 * failure), the authorization request with PKCE, state and nonce, the callback with its checks,
 * userinfo, and RP-initiated logout. Independent of any web framework.
 */
export class OidcClient {
  private readonly settings: Map<string, OidcProviderSettings>;
  private readonly discovered = new Map<string, Promise<oidc.Configuration>>();

  constructor(providers: readonly OidcProviderSettings[]) {
    this.settings = new Map(providers.map((p) => [p.id, p]));
  }

  providers(): OidcProviderSummary[] {
    return [...this.settings.values()].map(({ id, name }) => ({ id, name }));
  }

  has(providerId: string): boolean {
    return this.settings.has(providerId);
  }

  private provider(providerId: string): OidcProviderSettings {
    const settings = this.settings.get(providerId);
    if (!settings) {
      throw new OidcError('OIDC_UNKNOWN_PROVIDER', `unknown login provider '${providerId}'`);
    }
    return settings;
  }

  private configuration(providerId: string): Promise<oidc.Configuration> {
    const settings = this.provider(providerId);
    let pending = this.discovered.get(providerId);
    if (!pending) {
      pending = oidc
        .discovery(
          settings.issuer,
          settings.clientId,
          undefined,
          oidc.ClientSecretBasic(settings.clientSecret),
          {
            timeout: requestTimeoutSeconds,
            // Settings accept plain http only for loopback issuers (see settings.ts).
            execute: settings.issuer.protocol === 'http:' ? [oidc.allowInsecureRequests] : [],
          },
        )
        .catch((error: unknown) => {
          // Forget the failure so the next login tries again (the provider may just be starting).
          this.discovered.delete(providerId);
          throw new OidcError(
            'OIDC_DISCOVERY_FAILED',
            `cannot discover the OpenID provider '${providerId}' at ${settings.issuer.href}: ${describe(error)}. Check ${providerVariable(providerId, 'ISSUER')} and that the provider is reachable.`,
            { cause: error },
          );
        });
      this.discovered.set(providerId, pending);
    }
    return pending;
  }

  /** Builds the redirect to the provider; keep `pending` in the session until the callback. */
  async startAuthorization(
    providerId: string,
    redirectUri: string,
  ): Promise<{ url: URL; pending: PendingAuthorization }> {
    const config = await this.configuration(providerId);
    const pending: PendingAuthorization = {
      providerId,
      redirectUri,
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier: oidc.randomPKCECodeVerifier(),
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: this.provider(providerId).scopes,
      response_type: 'code',
      state: pending.state,
      nonce: pending.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { url, pending };
  }

  /**
   * Completes the login from the callback's query: checks state, exchanges the code with the PKCE
   * verifier, checks the ID token (issuer, audience, nonce) and reads userinfo.
   */
  async completeAuthorization(
    pending: PendingAuthorization,
    callbackQuery: URLSearchParams,
  ): Promise<OidcIdentity> {
    const returnedState = callbackQuery.get('state');
    if (returnedState === null || !sameSecret(returnedState, pending.state)) {
      throw new OidcError(
        'OIDC_STATE_MISMATCH',
        'the login callback does not belong to the login this browser started (state mismatch); start the login again',
      );
    }
    const config = await this.configuration(pending.providerId);
    // The redirect URI the provider knows, not the URL this request arrived at (proxies rewrite it).
    const currentUrl = new URL(pending.redirectUri);
    currentUrl.search = callbackQuery.toString();

    let tokens: Awaited<ReturnType<typeof oidc.authorizationCodeGrant>>;
    try {
      tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.codeVerifier,
        expectedState: pending.state,
        expectedNonce: pending.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      if (error instanceof oidc.AuthorizationResponseError) {
        throw new OidcError(
          'OIDC_AUTHORIZATION_DENIED',
          `the provider did not authorize the login: ${error.error}${error.error_description ? ` (${error.error_description})` : ''}`,
          { cause: error },
        );
      }
      if (error instanceof oidc.ResponseBodyError) {
        throw new OidcError(
          'OIDC_CODE_REJECTED',
          `the provider rejected the authorization code (${describe(error)}); it may have been used already or expired`,
          { cause: error },
        );
      }
      throw new OidcError('OIDC_CALLBACK_INVALID', `invalid login callback: ${describe(error)}`, {
        cause: error,
      });
    }

    const claims = tokens.claims();
    if (!claims) throw new OidcError('OIDC_CALLBACK_INVALID', 'the provider returned no ID token');
    let userinfo: oidc.UserInfoResponse;
    try {
      userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    } catch (error) {
      throw new OidcError('OIDC_USERINFO_FAILED', `cannot read userinfo: ${describe(error)}`, {
        cause: error,
      });
    }
    const email = text(userinfo.email) ?? text(claims.email);
    const verified = userinfo.email_verified ?? claims.email_verified;
    return {
      providerId: pending.providerId,
      issuer: claims.iss,
      subject: claims.sub,
      email: email?.toLowerCase(),
      emailVerified: email !== undefined && verified === true,
      name: displayName(text(userinfo.name) ?? text(claims.name), email, claims.sub),
      idToken: tokens.id_token,
    };
  }

  /** Where to send the browser to log out at the provider too, or undefined when it has no end_session_endpoint. */
  async endSessionUrl(
    providerId: string,
    options: { idTokenHint?: string | undefined; postLogoutRedirectUri: string },
  ): Promise<URL | undefined> {
    const config = await this.configuration(providerId);
    if (!config.serverMetadata().end_session_endpoint) return undefined;
    const parameters: Record<string, string> = { post_logout_redirect_uri: options.postLogoutRedirectUri };
    if (options.idTokenHint) parameters.id_token_hint = options.idTokenHint;
    return oidc.buildEndSessionUrl(config, parameters);
  }
}
