/**
 * `pnpm db:backup [-- --out <file>]` and `pnpm db:restore -- --from <file>`: backup and restore of
 * the embedded database in PGLITE_DIR (docs/operations.md, "Backup and restore"). A backup works
 * with the server running or stopped: while a server holds the directory, this asks that server
 * for the copy over its backup socket (backupSocket.ts) and lessons go on; with none, it opens the
 * directory itself. A restore goes into PGLITE_DIR only when that directory does not exist or is
 * empty, so never under a running server. On Postgres (DATABASE_URL set) use pg_dump/pg_restore.
 * Exit 0 done, 1 failed, 2 bad arguments or configuration, 3 the directory is held by a process
 * that does not answer on the backup socket.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { backupEmbeddedDatabase, PgliteDirLockedError, restoreEmbeddedDatabase } from '@wb/db';
import { backupSocketPath, NoRunningServerError, requestOnlineBackup } from './backupSocket.ts';
import { ConfigError, loadConfig } from './config.ts';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    // pnpm passes the `--` of `pnpm db:backup -- --out x` through; it separates nothing here.
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: { out: { type: 'string' }, from: { type: 'string' } },
    allowPositionals: true,
  });
  const command = positionals[0];
  if ((command !== 'backup' && command !== 'restore') || (command === 'restore' && !values.from)) {
    console.error('usage: pnpm db:backup [-- --out <file>] | pnpm db:restore -- --from <file>');
    process.exit(2);
  }
  let config;
  try {
    config = loadConfig();
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(2);
    }
    throw error;
  }
  if (config.DATABASE_URL) {
    console.error('DATABASE_URL is set: back up Postgres with pg_dump and restore with pg_restore (docs/operations.md)');
    process.exit(2);
  }
  const dataDir = resolve(config.PGLITE_DIR);
  try {
    if (command === 'backup') {
      const stamp = new Date().toISOString().replace(/[:.]/g, '-');
      const file = resolve(values.out ?? `${dataDir}-backup-${stamp}.tar.gz`);
      const { bytes, online } = await backupEither(dataDir, file);
      console.log(`backed up ${dataDir}${online ? ' (from the running server)' : ''} to ${file} (${(bytes / 2 ** 20).toFixed(1)} MB)`);
    } else {
      const file = resolve(values.from ?? '');
      await restoreEmbeddedDatabase(file, dataDir);
      console.log(`restored ${file} into ${dataDir}; start the server on it`);
    }
  } catch (error) {
    if (error instanceof PgliteDirLockedError) {
      console.error(`${error.message}\nThat process does not answer on ${backupSocketPath(dataDir)}: is it this version of the server?`);
      process.exit(3);
    }
    throw error;
  }
}

/** From the running server when one holds the directory, else by opening it here. */
async function backupEither(dataDir: string, file: string): Promise<{ bytes: number; online: boolean }> {
  try {
    return { ...(await backupEmbeddedDatabase(dataDir, file)), online: false };
  } catch (error) {
    if (!(error instanceof PgliteDirLockedError)) throw error;
    try {
      return { ...(await requestOnlineBackup(dataDir, file)), online: true };
    } catch (onlineError) {
      if (onlineError instanceof NoRunningServerError) throw error;
      throw onlineError;
    }
  }
}

main().catch((error: unknown) => {
  console.error(`db:backup failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
