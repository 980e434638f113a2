/**
 * A real OpenID Provider for tests: `oidc-provider` (OpenID Certified), on 127.0.0.1, with one
 * confidential client whose redirect URI is the classroom server's callback. The person who signs
 * in is chosen by the test (`signInAs`); the provider's login and consent steps are completed by
 * its own interaction API, so the authorization code, PKCE, state, nonce, signatures and tokens
 * are the provider's, untouched.
 *
 * An attacker's token is made with `tamperNextIdToken`: the next ID token the token endpoint
 * issues has some claims changed and is signed again with the provider's own key, so it passes the
 * signature check and must be refused for its claims (a wrong audience, an expiry in the past).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type JWTPayload } from 'jose';
import Provider from 'oidc-provider';

export interface TestAccount {
  sub: string;
  email: string;
  name: string;
  emailVerified?: boolean;
}

export interface TestProvider {
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** The person the next login at the provider is. */
  signInAs(account: TestAccount): void;
  /** Changes the claims of the next ID token the token endpoint issues (signed again with the provider's key). */
  tamperNextIdToken(change: (claims: JWTPayload) => JWTPayload): void;
  /**
   * Plays the browser at the provider: opens the authorization URL and follows the provider's
   * redirects (keeping its cookies) until it sends the browser to `redirectUri`; that URL, with
   * `code` and `state`, is returned.
   */
  authorize(authorizationUrl: string): Promise<URL>;
  close(): Promise<void>;
}

export async function startTestProvider(options: { redirectUris: string[]; port?: number; clientId?: string; clientSecret?: string }): Promise<TestProvider> {
  let handler: Parameters<typeof createServer>[1] = (_req, res) => res.end();
  const server: Server = createServer((req, res) => handler!(req, res));
  await new Promise<void>((done) => server.listen(options.port ?? 0, '127.0.0.1', done));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const clientId = options.clientId ?? 'classroom';
  const clientSecret = options.clientSecret ?? 'a-test-client-secret-of-enough-length';
  let account: TestAccount = { sub: 'nobody', email: 'nobody@school.example', name: 'Nobody' };
  const accounts = new Map<string, TestAccount>();
  let tamper: ((claims: JWTPayload) => JWTPayload) | null = null;

  const provider = new Provider(issuer, {
    clients: [
      {
        client_id: clientId,
        client_secret: clientSecret,
        redirect_uris: options.redirectUris,
        grant_types: ['authorization_code'],
        response_types: ['code'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    ],
    jwks: { keys: [jwk] },
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name'] },
    cookies: { keys: ['a test cookie key, not a secret'] },
    // Seconds; set so the provider does not warn about its defaults on every run.
    ttl: { AccessToken: 600, AuthorizationCode: 60, Grant: 3600, IdToken: 600, Interaction: 600, Session: 3600 },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
    findAccount: (_ctx, sub) => {
      const found = accounts.get(sub);
      if (!found) return undefined;
      return { accountId: sub, claims: () => ({ sub, email: found.email, email_verified: found.emailVerified ?? true, name: found.name }) };
    },
  });

  // Login and consent, completed for the account the test chose.
  provider.use(async (ctx, next) => {
    if (ctx.method === 'GET' && /^\/interaction\/[^/]+$/.test(ctx.path)) {
      const details = await provider.interactionDetails(ctx.req, ctx.res);
      let result: Record<string, unknown>;
      if (details.prompt.name === 'login') {
        accounts.set(account.sub, account);
        result = { login: { accountId: account.sub } };
      } else {
        const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: String(details.params.client_id) });
        grant.addOIDCScope(String(details.params.scope));
        result = { consent: { grantId: await grant.save() } };
      }
      const to = await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: true });
      ctx.status = 303;
      ctx.redirect(to);
      return;
    }
    await next();
    const body = ctx.body as { id_token?: unknown } | undefined;
    if (ctx.path === '/token' && tamper && body && typeof body.id_token === 'string') {
      const change = tamper;
      tamper = null;
      const forged = change(decodeJwt(body.id_token));
      ctx.body = { ...body, id_token: await new SignJWT(forged).setProtectedHeader({ alg: 'RS256', kid: jwk.kid, typ: 'JWT' }).sign(privateKey) };
    }
  });
  handler = provider.callback();

  return {
    issuer,
    clientId,
    clientSecret,
    signInAs: (next) => {
      account = next;
    },
    tamperNextIdToken: (change) => {
      tamper = change;
    },
    async authorize(authorizationUrl) {
      const jar = new Map<string, string>();
      let url = new URL(authorizationUrl);
      for (let hop = 0; hop < 10; hop++) {
        const response = await fetch(url, { redirect: 'manual', headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; ') } });
        for (const cookie of response.headers.getSetCookie()) {
          const [pair] = cookie.split(';');
          const [name, ...value] = pair!.split('=');
          jar.set(name!.trim(), value.join('='));
        }
        const location = response.headers.get('location');
        if (!location) throw new Error(`the provider answered ${response.status} without a redirect: ${await response.text()}`);
        url = new URL(location, url);
        if (options.redirectUris.some((uri) => url.href.startsWith(uri))) return url;
      }
      throw new Error('the provider redirected too often');
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
