/**
 * Sign-in through the district's OpenID providers (docs/operations.md, "Teacher sign-in";
 * docs/protocol.md, "Sign-in through an OpenID provider"), with openid-client (a certified relying
 * party): the authorization code flow with PKCE (S256), a fresh `state` and `nonce` per attempt,
 * and the ID token validated (signature against the provider's keys, issuer, audience, expiry,
 * nonce) before anyone is signed in.
 *
 * The attempt's secrets (state, nonce, PKCE verifier) travel in a short-lived httpOnly cookie
 * scoped to the callback's path, so any node of a fleet can finish what another started; the
 * callback clears it, so a replayed callback finds no attempt. The cookie only ever returns to
 * the browser that started the sign-in: a callback URL handed to another browser (a forged or
 * swapped state) finds no matching attempt there.
 */
import * as client from 'openid-client';
import { OidcSignInError } from '@wb/protocol';
import type { OidcProviderConfig } from './config.ts';

/** The cookie of one sign-in attempt: long enough to type a password at the provider, short enough to be useless later. */
export const OIDC_ATTEMPT_COOKIE = 'wb_oidc';
export const OIDC_ATTEMPT_TTL_S = 600;

/** What the start leaves in the browser, read back at the callback. */
interface Attempt {
  provider: string;
  state: string;
  nonce: string;
  verifier: string;
}

/** A person the provider vouched for. */
export interface VerifiedIdentity {
  provider: string;
  subject: string;
  email: string;
  displayName: string;
}

export type FinishResult = { ok: true; identity: VerifiedIdentity } | { ok: false; error: OidcSignInError; detail: string };

export class OidcProviders {
  private readonly configs = new Map<string, Promise<client.Configuration>>();

  constructor(readonly providers: readonly OidcProviderConfig[]) {}

  /** The buttons of the sign-in page. */
  list(): { id: string; name: string }[] {
    return this.providers.map(({ id, name }) => ({ id, name }));
  }

  has(id: string): boolean {
    return this.providers.some((p) => p.id === id);
  }

  /** The provider's discovered configuration, fetched once; a failed discovery is asked again next time. */
  private configuration(provider: OidcProviderConfig): Promise<client.Configuration> {
    let found = this.configs.get(provider.id);
    if (!found) {
      const insecure = new URL(provider.issuer).protocol === 'http:';
      found = client
        .discovery(new URL(provider.issuer), provider.clientId, undefined, provider.clientSecret ? client.ClientSecretBasic(provider.clientSecret) : client.None(), {
          // Only a loopback issuer may be http (config.ts refuses any other).
          execute: insecure ? [client.allowInsecureRequests] : [],
          timeout: 10,
        })
        .then((config) => {
          // Verify the ID token's signature against the provider's published keys too, not only
          // its claims: the token endpoint is trusted by TLS, the token by its signature as well.
          client.enableNonRepudiationChecks(config);
          return config;
        });
      found.catch(() => this.configs.delete(provider.id));
      this.configs.set(provider.id, found);
    }
    return found;
  }

  /** The provider's authorization URL and the cookie value that remembers this attempt. */
  async start(providerId: string, redirectUri: string): Promise<{ ok: true; url: URL; cookie: string } | { ok: false; error: OidcSignInError; detail: string }> {
    const provider = this.providers.find((p) => p.id === providerId);
    if (!provider) return { ok: false, error: OidcSignInError.UNKNOWN_PROVIDER, detail: providerId };
    let config: client.Configuration;
    try {
      config = await this.configuration(provider);
    } catch (error) {
      return { ok: false, error: OidcSignInError.PROVIDER_UNAVAILABLE, detail: describe(error) };
    }
    const attempt: Attempt = { provider: provider.id, state: client.randomState(), nonce: client.randomNonce(), verifier: client.randomPKCECodeVerifier() };
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid email profile',
      response_type: 'code',
      code_challenge: await client.calculatePKCECodeChallenge(attempt.verifier),
      code_challenge_method: 'S256',
      state: attempt.state,
      nonce: attempt.nonce,
    });
    return { ok: true, url, cookie: Buffer.from(JSON.stringify(attempt)).toString('base64url') };
  }

  /**
   * Finishes a callback: the state must be this browser's attempt's (checked before the code is
   * spent), then openid-client exchanges the code with the PKCE verifier and validates the ID
   * token; the email comes from the ID token or, when the provider keeps it there, from userinfo.
   */
  async finish(providerId: string, callbackUrl: URL, cookie: string | null): Promise<FinishResult> {
    const provider = this.providers.find((p) => p.id === providerId);
    if (!provider) return { ok: false, error: OidcSignInError.UNKNOWN_PROVIDER, detail: providerId };
    const attempt = readAttempt(cookie);
    const state = callbackUrl.searchParams.get('state');
    if (!attempt || attempt.provider !== provider.id || state === null || state !== attempt.state) {
      return { ok: false, error: OidcSignInError.STATE_MISMATCH, detail: attempt ? 'the state is not this browser’s attempt' : 'no sign-in attempt in this browser' };
    }
    let config: client.Configuration;
    try {
      config = await this.configuration(provider);
    } catch (error) {
      return { ok: false, error: OidcSignInError.PROVIDER_UNAVAILABLE, detail: describe(error) };
    }
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: attempt.verifier,
        expectedState: attempt.state,
        expectedNonce: attempt.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      return { ok: false, error: classify(error), detail: describe(error) };
    }
    const claims = tokens.claims();
    if (!claims) return { ok: false, error: OidcSignInError.TOKEN_INVALID, detail: 'no ID token' };
    let profile: Record<string, unknown> = claims;
    if (typeof claims.email !== 'string') {
      try {
        profile = { ...(await client.fetchUserInfo(config, tokens.access_token, claims.sub)), ...claims };
      } catch (error) {
        return { ok: false, error: classify(error), detail: describe(error) };
      }
    }
    const email = typeof profile.email === 'string' ? profile.email.trim().toLowerCase() : null;
    const verified = profile.email_verified === true || (!provider.requireVerifiedEmail && profile.email_verified !== false);
    if (!email || !verified) return { ok: false, error: OidcSignInError.EMAIL_MISSING, detail: email ? 'email not verified' : 'no email' };
    const name = typeof profile.name === 'string' && profile.name.trim() ? profile.name.trim().slice(0, 40) : email.split('@')[0]!.slice(0, 40);
    return { ok: true, identity: { provider: provider.id, subject: claims.sub, email, displayName: name } };
  }
}

function readAttempt(cookie: string | null): Attempt | null {
  if (!cookie) return null;
  try {
    const value = JSON.parse(Buffer.from(cookie, 'base64url').toString('utf8')) as Partial<Attempt>;
    const fields = [value.provider, value.state, value.nonce, value.verifier];
    return fields.every((f) => typeof f === 'string' && f.length > 0 && f.length <= 200) ? (value as Attempt) : null;
  } catch {
    return null;
  }
}

/** The provider said no (an error in the callback, or the token endpoint refused the code), or the ID token failed a check. */
function classify(error: unknown): OidcSignInError {
  if (error instanceof client.AuthorizationResponseError || error instanceof client.ResponseBodyError) return OidcSignInError.CODE_REJECTED;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (code.startsWith('OAUTH_') || code.startsWith('ERR_JW'))) return OidcSignInError.TOKEN_INVALID;
  return OidcSignInError.PROVIDER_UNAVAILABLE;
}

function describe(error: unknown): string {
  const code = (error as { code?: unknown }).code;
  return `${typeof code === 'string' ? `${code}: ` : ''}${error instanceof Error ? error.message : String(error)}`;
}
