/**
 * Compiles the server to JavaScript for the image (`pnpm build:server`): one ESM bundle per entry
 * (the server; the migration, purge and backup CLIs) with the workspace packages (@wb/*) inlined and every npm
 * package left external, resolved from the production node_modules that `pnpm deploy --prod`
 * lays out (apps/server/package.json names them all). Beside the bundles, the files the code finds
 * relative to its own module: the migrations, the app-role script and the embedded database's
 * worker. Layout: dist/server/{main,migrate,purge,backup}.mjs, dist/server/pgliteWorker.mjs, dist/drizzle,
 * dist/sql (so `new URL('../drizzle', import.meta.url)` holds in the bundle as in the source).
 */
import { cpSync, mkdirSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const out = resolve(process.argv[2] ?? resolve(root, 'dist'));

rmSync(out, { recursive: true, force: true });
mkdirSync(resolve(out, 'server'), { recursive: true });

await build({
  entryPoints: {
    main: resolve(root, 'apps/server/src/main.ts'),
    migrate: resolve(root, 'apps/server/src/migrate.ts'),
    purge: resolve(root, 'apps/server/src/purge.ts'),
    backup: resolve(root, 'apps/server/src/backup.ts'),
  },
  outdir: resolve(out, 'server'),
  outExtension: { '.js': '.mjs' },
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  sourcemap: 'linked',
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
cpSync(resolve(root, 'packages/db/src/pgliteWorker.mjs'), resolve(out, 'server/pgliteWorker.mjs'));
cpSync(resolve(root, 'packages/db/drizzle'), resolve(out, 'drizzle'), { recursive: true });
cpSync(resolve(root, 'packages/db/sql'), resolve(out, 'sql'), { recursive: true });
console.log(`server compiled to ${out}`);
