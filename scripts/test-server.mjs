/**
 * The test suites' server processes run the server compiled by esbuild, not the TypeScript source
 * through tsx: a start then costs ~5.7 s of CPU instead of 7.1-8.0 (module loading through the tsx
 * loader and the workspace's files was most of the difference), and the fault suite alone starts
 * about 35 servers a run. It is what the image runs, too.
 *
 * `testServerBuild()` compiles the server once per process into a directory of its own under
 * apps/server/node_modules/.cache (so its npm imports resolve from the server's node_modules, and
 * suites building at once never share a directory) and returns the entry and the environment a
 * server process needs beside it: the embedded database's template cache of packages/db (the
 * bundle's own relative path would point elsewhere) and the web build. Directories older than a day
 * are removed. Every build compiles the current source, so a test never runs a stale server. A
 * suite that sets WB_TEST_SERVER_ENTRY (the fault suite's global setup) shares one build.
 *
 * Run as a script (`node scripts/test-server.mjs`), it compiles and starts the server in this
 * process: the browser suite's web server.
 */
import { mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleServer, repoRoot } from './server-bundle.mjs';

const cacheDir = resolve(repoRoot, 'apps/server/node_modules/.cache/wb-test-server');
const DAY_MS = 24 * 60 * 60 * 1000;

/** @type {Promise<{ entry: string, env: Record<string, string> }> | null} */
let building = null;

export function testServerBuild() {
  building ??= (async () => {
    // A suite's global setup built it already (the fault suite: one build for all its files).
    if (process.env.WB_TEST_SERVER_ENTRY) return { entry: process.env.WB_TEST_SERVER_ENTRY, env: serverEnv() };
    mkdirSync(cacheDir, { recursive: true });
    for (const name of readdirSync(cacheDir)) {
      const path = resolve(cacheDir, name);
      try {
        if (Date.now() - statSync(path).mtimeMs > DAY_MS) rmSync(path, { recursive: true, force: true });
      } catch {
        // another process removed it first
      }
    }
    const out = resolve(cacheDir, `${process.pid}-${Date.now().toString(36)}`);
    await bundleServer({ out, entries: { main: 'apps/server/src/main.ts' }, sourcemap: true });
    return { entry: resolve(out, 'server/main.mjs'), env: serverEnv() };
  })();
  return building;
}

function serverEnv() {
  return {
    WB_PGLITE_TEMPLATE_DIR: process.env.WB_PGLITE_TEMPLATE_DIR || resolve(repoRoot, 'packages/db/node_modules/.cache/wb-pglite-template'),
    WEB_DIST: process.env.WEB_DIST || resolve(repoRoot, 'apps/web/dist'),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { entry, env } = await testServerBuild();
  for (const [key, value] of Object.entries(env)) process.env[key] ??= value;
  await import(pathToFileURL(entry).href);
}
