import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import type { Database } from './database.ts';
import { rows } from './sql.ts';

/** The grants of the least-privilege role the server connects as in a deployment. */
export const appRoleSqlPath = fileURLToPath(new URL('../sql/app-role.sql', import.meta.url));

/** The role's name in sql/app-role.sql; `applyAppRole` may give it another. */
export const APP_ROLE = 'wb_app';

/**
 * Creates (or updates) the app role and its grants, as the owner, after the migrations: the
 * script is safe to rerun, and a rerun after a migration grants the new tables. With a password,
 * the role can log in with it (a Docker secret in docker-compose.yml). Postgres only.
 */
export async function applyAppRole(database: Database, options: { role?: string; password?: string } = {}): Promise<void> {
  if (database.kind !== 'postgres') throw new Error('the app role exists only on Postgres (the embedded database has one user)');
  const role = options.role ?? APP_ROLE;
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(role)) throw new Error(`not a plain role name: ${role}`);
  await database.db.execute(sql.raw(readFileSync(appRoleSqlPath, 'utf8').replaceAll(APP_ROLE, role)));
  if (options.password !== undefined) {
    // format() quotes both: the password never meets string concatenation here.
    const [statement] = await rows<{ s: string }>(database.db, sql`SELECT format('ALTER ROLE %I PASSWORD %L', ${role}::text, ${options.password}::text) AS s`);
    await database.db.execute(sql.raw(statement!.s));
  }
}
