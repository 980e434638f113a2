/**
 * Test databases for the contract suites (store and server): an in-memory PGlite, or a fresh
 * database on the real Postgres named by TEST_DATABASE_URL, dropped afterwards.
 * On CI (env CI set) a missing or unreachable Postgres is a failure, never a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from './database.ts';

export type TestDatabaseKind = 'pglite' | 'postgres';

/** Why the Postgres suites cannot run here, or null when they can. Throws on CI instead. */
export function postgresUnavailableReason(): string | null {
  if (process.env.TEST_DATABASE_URL) return null;
  if (process.env.CI) {
    throw new Error('CI is set but TEST_DATABASE_URL is not: the Postgres suites must run on CI.');
  }
  return 'TEST_DATABASE_URL is not set (set it to run this suite on real Postgres)';
}

export interface TestDatabase {
  database: Database;
  /** The connection URL (Postgres only), for a second independent connection. */
  url: string | null;
  drop(): Promise<void>;
}

/** Opens a migrated, empty database of the given kind. */
export async function openTestDatabase(kind: TestDatabaseKind): Promise<TestDatabase> {
  if (kind === 'pglite') {
    const database = await openDatabase({ kind: 'pglite' });
    return { database, url: null, drop: () => database.close() };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const name = `wb_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl, connectionTimeoutMillis: 5_000 });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 10 });
  return {
    database,
    url: url.toString(),
    drop: async () => {
      await database.close();
      const dropper = new pg.Client({ connectionString: adminUrl });
      await dropper.connect();
      try {
        await dropper.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      } finally {
        await dropper.end();
      }
    },
  };
}
