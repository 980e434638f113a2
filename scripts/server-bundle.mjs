/**
 * Compiles server entries to JavaScript with esbuild: one ESM bundle per entry, the workspace
 * packages (@wb/*) inlined and every npm package left external. Beside the bundles, the files the
 * code finds relative to its own module: the migrations, the app-role script and the embedded
 * database's worker. Layout under `out`: server/<entry>.mjs, server/pgliteWorker.mjs, drizzle/,
 * sql/ (so `new URL('../drizzle', import.meta.url)` holds in the bundle as in the source).
 * Used by build-server.mjs (the image) and test-server.mjs (the test suites' server processes).
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * @param {{ out: string, entries: Record<string, string>, sourcemap?: boolean }} options
 *   entries: bundle name -> source path relative to the repository
 */
export async function bundleServer({ out, entries, sourcemap = true }) {
  rmSync(out, { recursive: true, force: true });
  mkdirSync(resolve(out, 'server'), { recursive: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(entries).map(([name, path]) => [name, resolve(repoRoot, path)])),
    outdir: resolve(out, 'server'),
    outExtension: { '.js': '.mjs' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node24',
    sourcemap: sourcemap ? 'linked' : false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'npm-packages-external',
        setup(b) {
          // Bare imports other than the workspace's own packages stay imports.
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@wb/') ? undefined : { path: args.path, external: true }));
        },
      },
    ],
  });
  cpSync(resolve(repoRoot, 'packages/db/src/pgliteWorker.mjs'), resolve(out, 'server/pgliteWorker.mjs'));
  cpSync(resolve(repoRoot, 'packages/db/drizzle'), resolve(out, 'drizzle'), { recursive: true });
  cpSync(resolve(repoRoot, 'packages/db/sql'), resolve(out, 'sql'), { recursive: true });
}
