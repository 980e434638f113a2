/**
 * `pnpm serve` and the `pnpm db:*` commands: compiles the server and its command-line tools to
 * JavaScript (server-bundle.mjs, about a second) under apps/server/dist/<name>, so their npm
 * imports resolve from the server's node_modules, then runs the one named in this process. Each
 * tool has a directory of its own: `pnpm db:backup` beside a running `pnpm serve` never rewrites
 * the files that server loaded. No TypeScript
 * runtime (tsx) runs in production: this is the code the image runs (Dockerfile), started from a
 * checkout.
 *
 *   node scripts/run-built.mjs <main|mainForClass|migrate|purge|backup> [arguments for it]
 *
 * The bundles' own location is not the source's, so the defaults the source derives from its
 * path (the embedded database in .data/pglite, the web build in apps/web/dist, the PGlite
 * template cache) are set here, each only when the environment does not name it already.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { bundleServer, repoRoot } from './server-bundle.mjs';

const ENTRIES = {
  main: 'apps/server/src/main.ts',
  // `pnpm start:class`: the same server, listening on every interface.
  mainForClass: 'apps/server/src/mainForClass.ts',
  migrate: 'apps/server/src/migrate.ts',
  purge: 'apps/server/src/purge.ts',
  backup: 'apps/server/src/backup.ts',
};

const [name, ...args] = process.argv.slice(2);
if (!name || !(name in ENTRIES)) {
  console.error(`usage: node scripts/run-built.mjs <${Object.keys(ENTRIES).join('|')}> [arguments]`);
  process.exit(2);
}

const out = resolve(repoRoot, 'apps/server/dist', name);
await bundleServer({ out, entries: { [name]: ENTRIES[name] } });
// esbuild's service process would otherwise live as long as the server.
(await import('esbuild')).stop();

process.env.PGLITE_DIR ||= resolve(repoRoot, '.data/pglite');
process.env.WEB_DIST ||= resolve(repoRoot, 'apps/web/dist');
process.env.WB_PGLITE_TEMPLATE_DIR ||= resolve(repoRoot, 'packages/db/node_modules/.cache/wb-pglite-template');

const entry = resolve(out, `server/${name}.mjs`);
// The tool reads its arguments from process.argv as if started directly.
process.argv = [process.argv[0], entry, ...args];
await import(pathToFileURL(entry).href);
