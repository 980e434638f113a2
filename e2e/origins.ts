/**
 * Where the browser suite finds the shared e2e server. The browser opens it as a student's tablet
 * does on a school network: plain HTTP at a name that is not loopback, so no page is a secure
 * context (issue 35, I15) and a secure-context-only API without a fallback fails a test instead of
 * a classroom. Chromium maps the name to this machine (`--host-resolver-rules`); Node (fetch,
 * socket.io-client, `page.request`) does not know the name and uses the server's own address.
 */

/** The shared e2e server's port (`E2E_PORT`; each helper of a shared machine has its own). */
export const E2E_PORT = Number(process.env.E2E_PORT ?? 3210);

/** A name in the `.test` top-level domain, reserved for testing (RFC 2606): never a real host. */
export const CLASSROOM_HOST = 'classroom.test';

/** The browser's address of the app: the baseURL of the browser project. */
export const CLASSROOM_URL = `http://${CLASSROOM_HOST}:${E2E_PORT}`;

/** Chromium's switch that resolves CLASSROOM_HOST to this machine. */
export const CLASSROOM_RESOLVER_ARG = `--host-resolver-rules=MAP ${CLASSROOM_HOST} 127.0.0.1`;

/** The same server from Node (API calls, seeding sockets). */
export const SERVER_URL = `http://127.0.0.1:${E2E_PORT}`;

/**
 * The OpenID provider the sign-in journey starts (e2e/schoolSignIn.spec.ts) and the shared server
 * is configured with: on loopback, at `E2E_OIDC_PORT` (the e2e port + 21 by default, within a
 * helper's own range of ports).
 */
export const E2E_OIDC = {
  port: Number(process.env.E2E_OIDC_PORT ?? E2E_PORT + 21),
  providerId: 'school',
  clientId: 'classroom',
  clientSecret: 'a-test-client-secret-of-enough-length',
  get issuer() {
    return `http://127.0.0.1:${this.port}`;
  },
} as const;

/** The shared server's admin account (ADMIN_EMAILS): the admin journey signs it up. */
export const E2E_ADMIN_EMAIL = 'admin@district.test';
