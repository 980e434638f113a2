import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defineConfig } from '@playwright/test';
import { CLASSROOM_RESOLVER_ARG, CLASSROOM_URL, E2E_ADMIN_EMAIL, E2E_OIDC, E2E_PORT as port, SERVER_URL } from './e2e/origins.ts';
import { E2E_SERVER_TIMINGS } from './e2e/serverTimings.ts';
import { testBrowserPath } from './scripts/test-browser.mjs';

// Debian's headless shell where the machine has it (a third of full Chromium's CPU per page).
const systemChromium = testBrowserPath();
const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  CLASSROOM_RESOLVER_ARG,
];

/** Browser tests against the real server on the embedded default database (a fresh directory). */
export default defineConfig({
  testDir: 'e2e',
  testMatch: '**/*.spec.ts',
  // Generous: CI machines are shared, and a wait that is a condition costs nothing when it holds.
  timeout: 120_000,
  expect: { timeout: 15_000 },
  // Two lanes: the browser specs three files at a time on the shared server below (every spec makes
  // its own lessons and accounts, and none reads server-wide state; most of a spec's time is spent
  // waiting on pages and sockets, not computing), and beside them the release drill, whose two
  // databases (each its own server process) run side by side.
  workers: 5,
  retries: 0,
  projects: [
    // Each project writes its own output folder, so the two can also run as separate invocations
    // at once (`pnpm test` runs the drill beside the browser suite, at a higher priority) without
    // one clearing the other's folder.
    { name: 'browser', testIgnore: ['**/drill.spec.ts', '**/cluster.spec.ts'], fullyParallel: false, workers: 3, outputDir: 'test-results/browser' },
    { name: 'drill', testMatch: '**/drill.spec.ts', fullyParallel: true, workers: 2, outputDir: 'test-results/drill' },
    // The multi-node journeys: two server processes of their own on Postgres and Redis, opened as
    // http://classroom.test:<port> (a non-secure origin, as a school's network serves the app).
    {
      name: 'cluster',
      testMatch: '**/cluster.spec.ts',
      fullyParallel: false,
      workers: 1,
      outputDir: 'test-results/cluster',
      use: { launchOptions: { ...(systemChromium ? { executablePath: systemChromium } : {}), args: CHROMIUM_ARGS } },
    },
  ],
  forbidOnly: true,
  reporter: [['list']],
  use: {
    // Not a secure context: every page opens the app as a student's tablet on a school network
    // does, over plain http at a name that is not loopback (e2e/origins.ts, issue 35).
    baseURL: CLASSROOM_URL,
    // Recording a trace costs every test CPU (snapshots and a screencast at each action) even when
    // it passes and the trace is thrown away; CI, on two cores, keeps the failure screenshots only.
    trace: process.env.CI ? 'off' : 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      // Debian's headless shell or chromium where the machine has one; Playwright's own otherwise.
      ...(systemChromium ? { executablePath: systemChromium } : {}),
      args: CHROMIUM_ARGS,
    },
  },
  // The shared server of the browser specs; the drill starts servers of its own, so a run of the
  // drill alone (E2E_WEB_SERVER=off, as `pnpm test` runs it) does not start this one.
  webServer: process.env.E2E_WEB_SERVER === 'off' ? undefined : {
    // The server compiled by esbuild (scripts/test-server.mjs): a cheaper start than tsx.
    command: 'node scripts/test-server.mjs',
    url: `${SERVER_URL}/readyz`,
    timeout: 120_000,
    reuseExistingServer: false,
    stdout: 'ignore',
    stderr: 'pipe',
    env: {
      PORT: String(port),
      HOST: '127.0.0.1',
      // Deployed at the classroom's address: the invitation and its QR code show it, even to a
      // teacher who opened her own computer's 127.0.0.1 (e2e/classroomNetwork.spec.ts).
      PUBLIC_URL: CLASSROOM_URL,
      PGLITE_DIR: join(tmpdir(), `wb-e2e-${Date.now()}`, 'pglite'),
      // Its new data directory starts from the migrated template, not initdb (pgliteTemplate.ts).
      WB_PGLITE_TEMPLATE_DISK: 'on',
      LOG_LEVEL: 'warn',
      // The school's provider, started by the sign-in journey itself (the server asks it only then).
      OIDC_PROVIDERS: JSON.stringify([
        { id: E2E_OIDC.providerId, name: 'School account', issuer: E2E_OIDC.issuer, clientId: E2E_OIDC.clientId, clientSecret: E2E_OIDC.clientSecret },
      ]),
      ADMIN_EMAILS: E2E_ADMIN_EMAIL,
      ...Object.fromEntries(Object.entries(E2E_SERVER_TIMINGS).map(([name, ms]) => [name, String(ms)])),
    },
  },
});
