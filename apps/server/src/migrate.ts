/**
 * `pnpm db:migrate` (and the compose `migrate` service): applies pending migrations as the
 * database owner, then on Postgres creates or updates the least-privilege app role with its
 * grants (packages/db/sql/app-role.sql) and, when given, its password. The server itself can then
 * run with DATABASE_MIGRATE=false as that role. Exit 0 when done, 1 on failure, 2 on bad config.
 *
 * Reads DATABASE_URL (or DATABASE_URL_FILE) as the owner; unset, the embedded database in
 * PGLITE_DIR. WB_APP_ROLE (default wb_app) names the role, WB_APP_PASSWORD or
 * WB_APP_PASSWORD_FILE its password.
 */
import { readFileSync } from 'node:fs';
import { APP_ROLE, applyAppRole, openDatabase } from '@wb/db';
import { ConfigError, loadConfig } from './config.ts';

async function main(): Promise<void> {
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
  const passwordFile = process.env.WB_APP_PASSWORD_FILE;
  const password = passwordFile ? readFileSync(passwordFile, 'utf8').trim() : process.env.WB_APP_PASSWORD || undefined;
  const role = process.env.WB_APP_ROLE || APP_ROLE;
  const database = await openDatabase(
    config.DATABASE_URL ? { kind: 'postgres', url: config.DATABASE_URL, poolSize: 2, migrate: true } : { kind: 'pglite', dataDir: config.PGLITE_DIR },
  );
  try {
    console.log(`migrations applied (${database.kind})`);
    if (database.kind === 'postgres') {
      await applyAppRole(database, { role, ...(password === undefined ? {} : { password }) });
      console.log(`role ${role}: grants applied${password === undefined ? ' (no password given: set one out of band)' : ', password set'}`);
    }
  } finally {
    await database.close();
  }
}

main().catch((error: unknown) => {
  console.error(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
