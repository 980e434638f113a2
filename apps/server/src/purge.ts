/**
 * `pnpm db:purge -- --room <code> [--user <userId>] --reason "<why>"`: the retention purge
 * (docs/operations.md, "Retention"), run as the database owner (DATABASE_URL[_FILE]; unset, the
 * embedded database in PGLITE_DIR, with the server stopped). Removes a whole lesson, or one
 * member of it, attendance included, and prints the audit fact's id. Exit 0 done, 1 failed,
 * 2 bad arguments or configuration.
 */
import { parseArgs } from 'node:util';
import { findRoomIdForPurge, openDatabase, purgeMember, purgeRoom } from '@wb/db';
import { ConfigError, loadConfig } from './config.ts';

async function main(): Promise<void> {
  const { values } = parseArgs({
    // pnpm passes the `--` of `pnpm db:purge -- --room x` through; it separates nothing here.
    args: process.argv.slice(2).filter((arg) => arg !== '--'),
    options: { room: { type: 'string' }, user: { type: 'string' }, reason: { type: 'string' } },
  });
  if (!values.room || !values.reason) {
    console.error('usage: pnpm db:purge -- --room <code> [--user <userId>] --reason "<why>"');
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
  const database = await openDatabase(
    config.DATABASE_URL ? { kind: 'postgres', url: config.DATABASE_URL, poolSize: 2, migrate: true } : { kind: 'pglite', dataDir: config.PGLITE_DIR },
  );
  try {
    const roomId = await findRoomIdForPurge(database, values.room);
    if (!roomId) throw new Error(`no room with code ${values.room}`);
    const result = values.user ? await purgeMember(database, roomId, values.user, values.reason) : await purgeRoom(database, roomId, values.reason);
    console.log(`purged ${result.rows} rows (${result.attendanceRows} attendance facts); audit fact retention_purges.id = ${result.auditId}`);
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(`db:purge failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
