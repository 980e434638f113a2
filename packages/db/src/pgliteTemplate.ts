/**
 * A migrated, empty embedded database kept as a tarball, so an in-memory PGlite (tests, benches)
 * starts from it instead of running initdb and every migration again: about 0.7 s of CPU instead
 * of 3-5 s, measured on the 2-core CI machine. In-memory databases use it; a new data directory on
 * disk is seeded from it only when WB_PGLITE_TEMPLATE_DISK=on (the test servers of the browser and
 * fault suites, which start a dozen fresh servers a run), never in a deployment.
 *
 * The file is keyed by the PGlite version and the migrations' bytes, so a changed migration or
 * engine makes a new template; it is written under a temporary name and renamed, so processes
 * starting at once never read half a file. It lives in this package's `node_modules/.cache`, inside
 * the checkout (not a shared temporary directory another user could write a template into).
 * Set WB_PGLITE_TEMPLATE=off to always start from initdb.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

let cachedName: string | null = null;

/**
 * Where the template for this engine and these migrations lives (whether or not it exists yet):
 * the package's cache directory, or WB_PGLITE_TEMPLATE_DIR (the template's own test writes one
 * in a directory of its own instead of deleting the one every other test process starts from).
 */
export function pgliteTemplatePath(migrationsFolder: string): string {
  const cacheDir = process.env.WB_PGLITE_TEMPLATE_DIR || fileURLToPath(new URL('../node_modules/.cache/wb-pglite-template/', import.meta.url));
  cachedName ??= templateName(migrationsFolder);
  return join(cacheDir, cachedName);
}

function templateName(migrationsFolder: string): string {
  return `${migrationsKey(migrationsFolder, `pglite ${pgliteVersion()}\n`)}.tar`;
}

/**
 * A short key for a migrated template: a hash of every migration's name and bytes (and `salt`,
 * e.g. the engine's version), so a changed migration keys a new template. Also the Postgres test
 * template's (testing.ts).
 */
export function migrationsKey(migrationsFolder: string, salt = ''): string {
  const hash = createHash('sha256');
  hash.update(salt);
  const files = readdirSync(migrationsFolder, { recursive: true, encoding: 'utf8' }).sort();
  for (const file of files) {
    if (!file.endsWith('.sql') && !file.endsWith('.json')) continue;
    hash.update(file);
    hash.update(readFileSync(join(migrationsFolder, file)));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The installed engine's version, from its package.json (which the package does not export). */
function pgliteVersion(): string {
  for (let dir = dirname(require.resolve('@electric-sql/pglite')); dir !== dirname(dir); dir = dirname(dir)) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as { name?: string; version?: string };
      if (manifest.name === '@electric-sql/pglite') return manifest.version ?? 'unknown';
    } catch {
      // not this directory
    }
  }
  return 'unknown';
}

export function pgliteTemplateEnabled(): boolean {
  return process.env.WB_PGLITE_TEMPLATE !== 'off';
}

/**
 * Whether a new data directory on disk starts from the template (WB_PGLITE_TEMPLATE_DISK=on): for
 * test servers only. A deployment's first start runs initdb, from nothing in a cache directory.
 */
export function pgliteDiskTemplateEnabled(): boolean {
  return pgliteTemplateEnabled() && process.env.WB_PGLITE_TEMPLATE_DISK === 'on';
}

/** The template's bytes, or null when there is none yet (or it cannot be read). */
export function readPgliteTemplate(path: string): Uint8Array | null {
  try {
    return readFileSync(path);
  } catch {
    return null;
  }
}

/** Writes the template atomically; a failure only means the next start runs initdb again. */
export function writePgliteTemplate(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${process.pid}.${Date.now()}.partial`;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
  } catch {
    // Best effort: a read-only or full temporary directory costs time, not correctness.
  }
}
