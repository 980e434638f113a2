/**
 * Sign-in through an OpenID provider, against a real one (oidc-provider, certified) running in
 * the test: a good sign-in, and the attacks the relying party must refuse, each with its
 * documented code (docs/protocol.md, "Sign-in through an OpenID provider"): a forged state, a
 * callback in a browser that did not start it, a replayed code, an ID token for another audience,
 * an expired ID token. Then the operator's rules: sign-up limited to some domains, a disabled
 * account. PGlite and real Postgres.
 */
import { randomBytes } from 'node:crypto';
import { OidcSignInError, TeacherAccount } from '@wb/protocol';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startTestProvider, type TestAccount } from '../../../test/support/oidcProvider.ts';
import type { App } from '../src/app.ts';
import { describeOnEachDatabase } from './support.ts';

// The server's public address: the callback the provider sends the browser to. The test plays
// the browser, so nothing needs to answer at this name.
const PUBLIC_URL = 'http://classroom.test';
const CALLBACK = `${PUBLIC_URL}/api/teacher/oidc/district/callback`;

const provider = await startTestProvider({ redirectUris: [CALLBACK] });
afterAll(() => provider.close());

const account = (name: string, domain = 'school.example'): TestAccount => {
  const id = randomBytes(5).toString('hex');
  return { sub: `sub-${id}`, email: `${name.toLowerCase()}.${id}@${domain}`, name };
};

describeOnEachDatabase(
  'sign-in through an OpenID provider',
  {
    env: {
      PUBLIC_URL,
      OIDC_PROVIDERS: JSON.stringify([
        { id: 'district', name: 'District account', issuer: provider.issuer, clientId: provider.clientId, clientSecret: provider.clientSecret },
      ]),
      SIGN_UP_EMAIL_DOMAINS: 'school.example',
      ADMIN_EMAILS: 'admin@school.example',
    },
  },
  (suite) => {
    let app: App;
    beforeAll(() => {
      app = suite.app;
    });

    /** The browser opens the start route: a redirect to the provider and the attempt's cookie. */
    async function start(): Promise<{ authorizationUrl: string; attempt: string }> {
      const response = await fetch(`${app.url}/api/teacher/oidc/district/start`, { redirect: 'manual' });
      expect(response.status).toBe(303);
      const attempt = response.headers.getSetCookie().find((c) => c.startsWith('wb_oidc='));
      expect(attempt).toMatch(/HttpOnly; SameSite=Lax; Max-Age=600/);
      const authorizationUrl = response.headers.get('location')!;
      const asked = new URL(authorizationUrl).searchParams;
      expect(Object.fromEntries(['response_type', 'code_challenge_method', 'redirect_uri', 'client_id'].map((k) => [k, asked.get(k)]))).toEqual({
        response_type: 'code',
        code_challenge_method: 'S256',
        redirect_uri: CALLBACK,
        client_id: provider.clientId,
      });
      expect(asked.get('state')).toBeTruthy();
      expect(asked.get('nonce')).toBeTruthy();
      return { authorizationUrl, attempt: attempt!.split(';')[0]! };
    }

    /** The provider's redirect back, delivered to the server with (or without) the attempt's cookie. */
    async function callback(search: string, attempt: string | null): Promise<{ location: string; teacherCookie: string | null }> {
      const response = await fetch(`${app.url}/api/teacher/oidc/district/callback${search}`, {
        redirect: 'manual',
        headers: attempt ? { cookie: attempt } : {},
      });
      expect(response.status).toBe(303);
      const cookies = response.headers.getSetCookie();
      // The attempt is over whatever the outcome: its cookie is cleared.
      expect(cookies.some((c) => /^wb_oidc=;.*Max-Age=0/.test(c))).toBe(true);
      const teacher = cookies.find((c) => c.startsWith('wb_teacher='));
      return { location: response.headers.get('location')!, teacherCookie: teacher ? teacher.split(';')[0]! : null };
    }

    async function me(cookie: string) {
      const response = await fetch(`${app.url}/api/teacher/me`, { headers: { cookie } });
      return { status: response.status, body: (await response.json()) as unknown };
    }

    const refusedWith = (code: OidcSignInError) => ({ location: `/teacher?signInError=${code}`, teacherCookie: null });

    test('OIDC1: a good sign-in makes the account once, signs in with the teacher cookie, and a second sign-in finds the same account', async () => {
      const ada = account('Ada');
      provider.signInAs(ada);
      const first = await start();
      const back = await provider.authorize(first.authorizationUrl);
      const signedIn = await callback(back.search, first.attempt);
      expect(signedIn.location).toBe('/teacher');
      expect(signedIn.teacherCookie).toMatch(/^wb_teacher=.{20,}/);
      const who = await me(signedIn.teacherCookie!);
      expect(who.status).toBe(200);
      const teacher = TeacherAccount.parse(who.body);
      expect(teacher).toMatchObject({ email: ada.email, displayName: 'Ada', admin: false });

      const again = await start();
      const secondBack = await provider.authorize(again.authorizationUrl);
      const second = await callback(secondBack.search, again.attempt);
      expect(TeacherAccount.parse((await me(second.teacherCookie!)).body).id).toBe(teacher.id);
      // No password signs into an account a provider made.
      const password = await fetch(`${app.url}/api/teacher/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: ada.email, password: 'anything at all' }),
      });
      expect(password.status).toBe(401);
    });

    test('OIDC2: a forged state is refused oidc_state_mismatch before the code is spent, and the code still works for its own attempt', async () => {
      provider.signInAs(account('Grace'));
      const attempt = await start();
      const back = await provider.authorize(attempt.authorizationUrl);
      const forged = new URL(back);
      forged.searchParams.set('state', 'an-attackers-state-value');
      expect(await callback(forged.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.STATE_MISMATCH));
      // A callback arriving in a browser that started no sign-in (a link handed to a victim).
      expect(await callback(back.search, null)).toEqual(refusedWith(OidcSignInError.STATE_MISMATCH));
      // The state check ran before the exchange: the code is unspent and signs its own browser in.
      expect((await callback(back.search, attempt.attempt)).location).toBe('/teacher');
    });

    test('OIDC3: a replayed code is refused oidc_code_rejected by the provider, even with the attempt cookie replayed too', async () => {
      provider.signInAs(account('Katherine'));
      const attempt = await start();
      const back = await provider.authorize(attempt.authorizationUrl);
      expect((await callback(back.search, attempt.attempt)).location).toBe('/teacher');
      expect(await callback(back.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.CODE_REJECTED));
      // The cleared cookie means the browser itself has no attempt left to replay.
      expect(await callback(back.search, null)).toEqual(refusedWith(OidcSignInError.STATE_MISMATCH));
    });

    test('OIDC4: an ID token for another audience, signed with the provider\'s own key, is refused oidc_token_invalid', async () => {
      const mallory = account('Mallory');
      provider.signInAs(mallory);
      const attempt = await start();
      const back = await provider.authorize(attempt.authorizationUrl);
      provider.tamperNextIdToken((claims) => ({ ...claims, aud: 'another-schools-client' }));
      expect(await callback(back.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.TOKEN_INVALID));
    });

    test('OIDC5: an expired ID token is refused oidc_token_invalid', async () => {
      provider.signInAs(account('Eve'));
      const attempt = await start();
      const back = await provider.authorize(attempt.authorizationUrl);
      const hourAgo = Math.floor(Date.now() / 1000) - 3600;
      provider.tamperNextIdToken((claims) => ({ ...claims, iat: hourAgo - 600, exp: hourAgo }));
      expect(await callback(back.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.TOKEN_INVALID));
    });

    test('OIDC6: an ID token with another nonce is refused oidc_token_invalid', async () => {
      provider.signInAs(account('Trudy'));
      const attempt = await start();
      const back = await provider.authorize(attempt.authorizationUrl);
      provider.tamperNextIdToken((claims) => ({ ...claims, nonce: 'a-nonce-from-another-attempt' }));
      expect(await callback(back.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.TOKEN_INVALID));
    });

    test('OIDC7: sign-up limited to the district\'s domains: another domain makes no account; an unverified email is refused', async () => {
      provider.signInAs(account('Outsider', 'elsewhere.example'));
      let attempt = await start();
      let back = await provider.authorize(attempt.authorizationUrl);
      expect(await callback(back.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.SIGN_UP_CLOSED));

      provider.signInAs({ ...account('Unverified'), emailVerified: false });
      attempt = await start();
      back = await provider.authorize(attempt.authorizationUrl);
      expect(await callback(back.search, attempt.attempt)).toEqual(refusedWith(OidcSignInError.EMAIL_MISSING));
    });

    test('OIDC8: an unknown provider is refused oidc_unknown_provider', async () => {
      const response = await fetch(`${app.url}/api/teacher/oidc/nowhere/start`, { redirect: 'manual' });
      expect(response.status).toBe(303);
      expect(response.headers.get('location')).toBe(`/teacher?signInError=${OidcSignInError.UNKNOWN_PROVIDER}`);
    });

    test('the sign-in options list the provider and the sign-up rule', async () => {
      const response = await fetch(`${app.url}/api/teacher/sign-in-options`);
      expect(await response.json()).toEqual({ providers: [{ id: 'district', name: 'District account' }], signUp: 'domains' });
    });
  },
);
