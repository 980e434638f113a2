import type { Store } from '@wb/db';
import { OidcSignInError, type SignInOptions } from '@wb/protocol';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import { OIDC_ATTEMPT_COOKIE, OIDC_ATTEMPT_TTL_S, type OidcProviders } from '../oidc.ts';
import { mayMakeAccount, signUpMode } from '../signInPolicy.ts';
import type { ProxyTrust } from './proxyTrust.ts';
import { HTTP_LIMITS, type RateLimiter } from './rateLimits.ts';
import { openSignedInSession } from './teacherRoutes.ts';

/**
 * Sign-in through an OpenID provider (docs/protocol.md, "Sign-in through an OpenID provider"):
 * the browser is sent to the provider and comes back to the callback, which answers with a
 * redirect to the teacher page, signed in or with `?signInError=<code>`.
 */
export function registerOidcRoutes(
  app: FastifyInstance,
  deps: { store: Store; config: Config; providers: OidcProviders; proxies: ProxyTrust; limits: RateLimiter },
): void {
  const { store, config, providers } = deps;
  const callbackPath = (id: string) => `/api/teacher/oidc/${id}/callback`;
  // The address the provider sends the browser back to, registered there by the operator.
  const redirectUri = (request: FastifyRequest, id: string) =>
    `${config.PUBLIC_URL ?? deps.proxies.selfOrigin(request.raw) ?? `http://${request.headers.host ?? 'localhost'}`}${callbackPath(id)}`;

  function attemptCookie(request: FastifyRequest, reply: FastifyReply, id: string, value: string | null): void {
    const attributes = [
      `${OIDC_ATTEMPT_COOKIE}=${value ?? ''}`,
      `Path=${callbackPath(id)}`,
      'HttpOnly',
      // Lax: the provider's redirect back is a top-level GET navigation, which carries it.
      'SameSite=Lax',
      `Max-Age=${value ? OIDC_ATTEMPT_TTL_S : 0}`,
    ];
    if (request.protocol === 'https') attributes.push('Secure');
    reply.header('set-cookie', attributes.join('; '));
  }

  function refuse(request: FastifyRequest, reply: FastifyReply, error: OidcSignInError, detail: string): FastifyReply {
    request.log.warn({ signInError: error, detail }, 'OpenID sign-in refused');
    return reply.header('cache-control', 'no-store').redirect(`/teacher?signInError=${error}`, 303);
  }

  const providerOf = (request: FastifyRequest) => String((request.params as { provider?: unknown }).provider ?? '');

  app.get('/api/teacher/sign-in-options', async (_request, reply) => {
    const options: SignInOptions = { providers: providers.list(), signUp: signUpMode(config) };
    return reply.header('cache-control', 'no-store').send(options);
  });

  app.get('/api/teacher/oidc/:provider/start', async (request, reply) => {
    const id = providerOf(request);
    const started = await providers.start(id, redirectUri(request, id));
    if (!started.ok) return refuse(request, reply, started.error, started.detail);
    attemptCookie(request, reply, id, started.cookie);
    return reply.header('cache-control', 'no-store').redirect(started.url.href, 303);
  });

  // Counted like a password sign-in: the callback is where a code is exchanged and checked.
  app.get('/api/teacher/oidc/:provider/callback', async (request, reply) => {
    if (!(await deps.limits.allow(reply, [[HTTP_LIMITS.signInPerAddress, request.ip]]))) return reply;
    const id = providerOf(request);
    if (!providers.has(id)) return refuse(request, reply, OidcSignInError.UNKNOWN_PROVIDER, id);
    // Whatever happens next, this attempt is over: a replayed callback finds nothing.
    attemptCookie(request, reply, id, null);
    const callbackUrl = new URL(redirectUri(request, id));
    callbackUrl.search = new URL(request.url, 'http://callback').search;
    const finished = await providers.finish(id, callbackUrl, cookieValue(request.headers.cookie, OIDC_ATTEMPT_COOKIE));
    if (!finished.ok) return refuse(request, reply, finished.error, finished.detail);
    const { identity } = finished;
    const signedIn = await store.signInWithIdentity({ ...identity, mayCreate: mayMakeAccount(config, identity.email) });
    if (signedIn.decision === 'sign_up_closed') return refuse(request, reply, OidcSignInError.SIGN_UP_CLOSED, identity.email);
    if (signedIn.decision === 'disabled') return refuse(request, reply, OidcSignInError.ACCOUNT_DISABLED, identity.email);
    request.log.info({ provider: id, decision: signedIn.decision, teacherId: signedIn.teacher.id }, 'OpenID sign-in');
    await openSignedInSession(store, request, reply, signedIn.teacher);
    return reply.redirect('/teacher', 303);
  });
}

/** One cookie's value from a `Cookie` header, or null. */
function cookieValue(header: string | undefined, name: string): string | null {
  for (const part of (header ?? '').split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=') || null;
  }
  return null;
}
