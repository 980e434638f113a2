import { defineConfig } from 'vitest/config';
import { catalogPlugin } from './apps/web/catalogPlugin.ts';

// One `vitest run` covers every package. Store and server suites open real databases, so they get
// generous timeouts; nothing asserts on wall-clock speed (that is bench/'s job).
export default defineConfig({
  test: {
    // Unit and contract files spend most of their time waiting (database start-ups, lease terms,
    // sockets), not computing: measured 255 s of CPU in 763 s one file at a time. Two at once
    // (beside the browser lane in CI); every file opens its own databases and servers on free
    // ports. Four at once beside the other lanes pushed the load to 25 and the property tests'
    // thousands of round trips past their timeouts.
    maxWorkers: 2,
    projects: [
      // The unit projects set `isolate: false`: a worker keeps its loaded modules from one file to
      // the next instead of starting a fresh process and importing the server, drizzle, socket.io
      // and PGlite again for every file. Measured on the whole unit run: 194 s of CPU isolated,
      // 128 s not (the import phase went from 51 s to 10 s). Every file still opens its own
      // databases and servers and closes them in its afterAll; module state is limited to caches
      // (the PGlite template's path, and one emptied in-memory PGlite engine that
      // openTestDatabase hands from a file to the next: database.ts, openRecycledPglite), and the
      // files that fake timers restore real ones after each test. The fault suite keeps the default (a process per file).
      { test: { name: 'protocol', isolate: false, include: ['packages/protocol/test/**/*.test.ts'] } },
      {
        test: {
          name: 'db',
          isolate: false,
          include: ['packages/db/test/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
      {
        test: {
          name: 'server',
          isolate: false,
          include: ['apps/server/test/**/*.test.ts'],
          testTimeout: 180_000,
          hookTimeout: 300_000,
        },
      },
      // The web project compiles catalogs as the build does (`locales/xx.json?lingui`).
      { plugins: [catalogPlugin()], test: { name: 'web', isolate: false, include: ['apps/web/src/**/*.test.ts', 'apps/web/test/**/*.test.ts'] } },
      { test: { name: 'repo', isolate: false, include: ['test/**/*.test.ts'], exclude: ['test/faults/**', '**/node_modules/**'] } },
      {
        // pnpm test:faults: real server processes under injected faults (docs/reliability.md).
        test: {
          name: 'faults',
          include: ['test/faults/**/*.test.ts'],
          // One compiled server for every file's server processes (scripts/test-server.mjs).
          globalSetup: ['test/faults/support/globalSetup.ts'],
          testTimeout: 180_000,
          hookTimeout: 180_000,
          // Each file spawns server processes, but most of their time is spent waiting (on lease
          // terms, restarts, outages), so two files run side by side on a 2-core machine (three
          // starved each other's server start-ups under load); tests in a file stay in order.
          fileParallelism: true,
          maxWorkers: 2,
        },
      },
    ],
  },
});
