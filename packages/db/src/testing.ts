/**
 * Test databases for the contract suites (store and server): an in-memory PGlite, or a fresh
 * database on the real Postgres named by TEST_DATABASE_URL, dropped afterwards.
 * On CI (env CI set) a missing or unreachable Postgres is a failure, never a skip.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrationsFolder, openDatabase, openRecycledPglite, type Database } from './database.ts';
import { migrationsKey } from './pgliteTemplate.ts';

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

/**
 * A database of its own for one test file, created on TEST_DATABASE_URL's server and dropped
 * afterwards, so parallel files and earlier runs share no rows.
 */
export class ScratchDatabase {
  readonly name = `wb_test_${randomBytes(6).toString('hex')}`;
  private readonly opened: Database[] = [];

  constructor(private readonly serverUrl: string) {}

  /** The scratch database's URL, optionally as another role. */
  url(user?: string): string {
    const url = new URL(this.serverUrl);
    url.pathname = `/${this.name}`;
    if (user) {
      url.username = user;
      url.password = '';
    }
    return url.toString();
  }

  /**
   * Creates the database: empty (for the migration tests, which apply migrations themselves), or
   * with `migrated`, as a copy of the migrated template database for these migrations (below).
   */
  async create(options: { migrated?: boolean } = {}): Promise<void> {
    const template = options.migrated ? await migratedTemplate(this.serverUrl) : null;
    await this.admin(`CREATE DATABASE ${this.name}${template ? ` TEMPLATE ${template}` : ''}`);
    // A commit here need not wait for its WAL to reach the disk (about 4 ms a commit on the CI
    // machine, most of the Postgres suites' wall time): what a commit makes visible to other
    // connections, its locks and its ordering are unchanged; only a crash of the Postgres server
    // itself could lose the last few commits, and these databases are dropped after their file.
    await this.admin(`ALTER DATABASE ${this.name} SET synchronous_commit = off`);
  }

  /** Opens a pool on the scratch database (migrating it on first open); closed by `drop`. */
  async open(options: { poolSize?: number; user?: string; migrate?: boolean; connectionWaitMs?: number; statementTimeoutMs?: number } = {}): Promise<Database> {
    const database = await openDatabase({
      kind: 'postgres',
      url: this.url(options.user),
      poolSize: options.poolSize ?? 4,
      ...(options.migrate === false ? { migrate: false } : {}),
      ...(options.connectionWaitMs === undefined ? {} : { connectionWaitMs: options.connectionWaitMs }),
      ...(options.statementTimeoutMs === undefined ? {} : { statementTimeoutMs: options.statementTimeoutMs }),
    });
    this.opened.push(database);
    return database;
  }

  async drop(): Promise<void> {
    for (const database of this.opened.splice(0)) await database.close().catch(() => {});
    await this.admin(`DROP DATABASE IF EXISTS ${this.name} WITH (FORCE)`);
  }

  /** Runs one statement on the server's maintenance connection (CREATE/DROP DATABASE, roles). */
  async admin(statement: string): Promise<void> {
    const client = new pg.Client({ connectionString: this.serverUrl, connectionTimeoutMillis: 5_000 });
    await client.connect();
    try {
      await client.query(statement);
    } finally {
      await client.end();
    }
  }
}

/**
 * Opens a migrated, empty database of the given kind. `connectionWaitMs` (Postgres) replaces the
 * 5 s a caller may wait for a connection, and `statementTimeoutMs` the 5 s a statement may run
 * (waiting for a row lock included): for tests that queue hundreds of transactions on purpose.
 */
export async function openTestDatabase(kind: TestDatabaseKind, options: { connectionWaitMs?: number; statementTimeoutMs?: number } = {}): Promise<TestDatabase> {
  if (kind === 'pglite') {
    // An emptied engine of an earlier file of this process when there is one (database.ts).
    const database = await openRecycledPglite();
    return { database, url: null, drop: () => database.close() };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('TEST_DATABASE_URL is not set');
  const scratch = new ScratchDatabase(adminUrl);
  await scratch.create({ migrated: true });
  const database = await scratch.open({ poolSize: 10, ...options });
  return { database, url: scratch.url(), drop: () => scratch.drop() };
}

/**
 * The migrated, empty template database on the test Postgres server for these migrations: a new
 * scratch database is a copy of it (`CREATE DATABASE ... TEMPLATE`) instead of running every
 * migration again, which cost about 1 s of Postgres CPU per test file. Named by a hash of the
 * migrations' bytes (`wb_template_<hash>`), so a changed migration makes a new one; made once per
 * server under an advisory lock (files and processes starting at once wait for the first), built
 * under a temporary name and renamed when complete. Templates of other migrations are left for
 * the checkouts that use them (a few MB each); nothing connects to a template after it is built,
 * as a copy requires.
 */
let templateName: string | null = null;
async function migratedTemplate(serverUrl: string): Promise<string> {
  templateName ??= `wb_template_${migrationsKey(migrationsFolder)}`;
  const name = templateName;
  const admin = new pg.Client({ connectionString: serverUrl, connectionTimeoutMillis: 5_000 });
  await admin.connect();
  try {
    // One session holds the lock (a pinned client, not a pool).
    await admin.query('SELECT pg_advisory_lock(hashtext($1))', [name]);
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount === 0) {
      const building = `${name}_building_${randomBytes(4).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${building}`);
      const url = new URL(serverUrl);
      url.pathname = `/${building}`;
      const database = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 });
      await database.close();
      // The pool's backend may still be exiting: a rename needs the database unused.
      for (let attempt = 0; ; attempt++) {
        try {
          await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
          break;
        } catch (error) {
          if (attempt >= 50) throw error;
          await new Promise((done) => setTimeout(done, 100));
        }
      }
    }
    return name;
  } finally {
    await admin.end().catch(() => {});
  }
}
