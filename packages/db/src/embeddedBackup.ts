/**
 * Backup and restore of the embedded database (PGlite) directory: `pnpm db:backup` and
 * `pnpm db:restore` (docs/operations.md, "Backup and restore").
 *
 * A backup is PGlite's own dump of its data directory (`dumpDataDir`: a gzipped tar of the
 * Postgres files), made by the one process that holds the directory's lock. While a server runs,
 * that is the server: its engine copies the directory between two statements outside any
 * transaction (Database.embeddedBackup, pgliteWorker.mjs) and `pnpm db:backup` asks it for the
 * copy (apps/server/src/backupSocket.ts). `backupEmbeddedDatabase` here is the other case, no
 * server running: it takes the lock itself and refuses (PgliteDirLockedError) when a process holds
 * it. Restore is the reverse, into a directory that does not exist yet or is empty, so a restore
 * can never overwrite a live database or mix two.
 */
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { PGlite } from '@electric-sql/pglite';
import { PgliteDirLock } from './pgliteLock.ts';

export interface EmbeddedBackupResult {
  file: string;
  bytes: number;
}

/**
 * Writes a consistent backup of `dataDir` to `file` (written beside it under a temporary name,
 * then renamed: a crash never leaves a truncated file under the final name). Throws
 * PgliteDirLockedError while another process (a running server) holds the directory.
 */
export async function backupEmbeddedDatabase(dataDir: string, file: string): Promise<EmbeddedBackupResult> {
  if (!isDatabaseDir(dataDir)) throw new Error(`${dataDir} holds no embedded database (nothing to back up)`);
  const lock = PgliteDirLock.acquire(dataDir);
  try {
    const db = new PGlite(dataDir);
    try {
      await db.waitReady;
      const dump = await db.dumpDataDir('gzip');
      const bytes = Buffer.from(await dump.arrayBuffer());
      const partial = `${file}.partial`;
      writeFileSync(partial, bytes);
      renameSync(partial, file);
      return { file, bytes: bytes.length };
    } finally {
      await db.close();
    }
  } finally {
    lock.release();
  }
}

/**
 * Restores a backup made by `backupEmbeddedDatabase` into `dataDir`, which must not exist or be
 * empty (move the old directory aside first). Opens the restored database once, so a damaged
 * archive fails here and not at the server's next start; on failure the new directory is removed.
 */
export async function restoreEmbeddedDatabase(file: string, dataDir: string): Promise<void> {
  if (existsSync(dataDir) && readdirSync(dataDir).length > 0) {
    throw new Error(`${dataDir} is not empty: restore only into a new directory (move the current one aside first)`);
  }
  const archive = new Blob([readFileSync(file)]);
  const lock = PgliteDirLock.acquire(dataDir);
  try {
    try {
      const db = new PGlite(dataDir, { loadDataDir: archive });
      try {
        await db.waitReady;
        await db.query('SELECT 1');
      } finally {
        await db.close();
      }
    } catch (error) {
      rmSync(dataDir, { recursive: true, force: true });
      throw error;
    }
  } finally {
    lock.release();
  }
}

/** A Postgres data directory has PG_VERSION at its top. */
function isDatabaseDir(dataDir: string): boolean {
  return existsSync(`${dataDir}/PG_VERSION`);
}
