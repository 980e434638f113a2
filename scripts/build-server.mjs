/**
 * Compiles the server to JavaScript for the image (`pnpm build:server`), with server-bundle.mjs:
 * one ESM bundle per entry (the server; the migration, purge and backup CLIs), every npm package
 * left external, resolved from the production node_modules that `pnpm deploy --prod` lays out
 * (apps/server/package.json names them all). Layout: dist/server/{main,migrate,purge,backup}.mjs,
 * dist/server/pgliteWorker.mjs, dist/drizzle, dist/sql.
 */
import { resolve } from 'node:path';
import { bundleServer, repoRoot } from './server-bundle.mjs';

const out = resolve(process.argv[2] ?? resolve(repoRoot, 'dist'));

await bundleServer({
  out,
  entries: {
    main: 'apps/server/src/main.ts',
    migrate: 'apps/server/src/migrate.ts',
    purge: 'apps/server/src/purge.ts',
    backup: 'apps/server/src/backup.ts',
  },
});
console.log(`server compiled to ${out}`);
