import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../src/database.ts';

/**
 * Where the real-Postgres tests connect. Unset means skip on a laptop, but fail under CI: a CI run
 * that silently skipped the real-database half of the contract would prove nothing.
 */
export function testDatabaseUrl(): { url: string } | { skip: string } {
  const url = process.env.TEST_DATABASE_URL;
  if (url) return { url };
  if (process.env.CI) {
    throw new Error('TEST_DATABASE_URL is not set but CI is: the real-Postgres store tests must run in CI, not skip');
  }
  return { skip: 'skipped: TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)' };
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

  async create(): Promise<void> {
    await this.admin(`CREATE DATABASE ${this.name}`);
  }

  /** Opens a pool on the scratch database (migrating it on first open); closed by `drop`. */
  async open(options: { poolSize?: number; user?: string; migrate?: boolean } = {}): Promise<Database> {
    const database = await openDatabase({
      kind: 'postgres',
      url: this.url(options.user),
      poolSize: options.poolSize ?? 4,
      ...(options.migrate === false ? { migrate: false } : {}),
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
