import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import pg from 'pg';
import { PgliteDirLock } from './pgliteLock.ts';
import * as schema from './schema.ts';
import type { Db } from './sql.ts';

export const migrationsFolder = fileURLToPath(new URL('../drizzle', import.meta.url));

/** Lock ids for session-level advisory locks; any two distinct int8 values would do. */
const MIGRATION_LOCK_ID = 0x77625f6d6967; // "wb_mig"
export const SWEEPER_LOCK_ID = 0x77625f737770; // "wb_swp"

/**
 * Leadership for the sweeper (I9): efficiency only, correctness rests on conditional writes.
 * On Postgres a session advisory lock held on one pinned connection; the database releases it
 * when that connection dies, so another node takes over.
 */
export interface LeaderLock {
  tryAcquire(): Promise<boolean>;
  release(): Promise<void>;
}

export interface Database {
  kind: 'pglite' | 'postgres';
  db: Db;
  leaderLock(lockId: number): LeaderLock;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export type DatabaseOptions =
  | {
      kind: 'postgres';
      url: string;
      poolSize?: number;
      /**
       * false when connecting as the restricted app role (sql/app-role.sql), which may not run
       * DDL: migrations are then applied beforehand by the owner role. Default true.
       */
      migrate?: boolean;
    }
  /** `dataDir` undefined means in memory (tests). */
  | { kind: 'pglite'; dataDir?: string };

/** Opens the database and applies every pending migration before returning (unless `migrate: false`). */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgres'
    ? openPostgres(options.url, options.poolSize ?? 10, options.migrate ?? true)
    : openPglite(options.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  let lock: PgliteDirLock | undefined;
  if (dataDir) {
    lock = PgliteDirLock.acquire(dataDir);
    mkdirSync(dataDir, { recursive: true });
  }
  let client: PGlite;
  try {
    client = dataDir ? new PGlite(dataDir) : new PGlite();
    await client.waitReady;
    const db = drizzlePglite(client, { schema }) as unknown as Db;
    await migratePglite(drizzlePglite(client), { migrationsFolder });
    return {
      kind: 'pglite',
      db,
      // One process owns the directory (the lock above), so it is always the leader.
      leaderLock: () => ({ tryAcquire: async () => true, release: async () => {} }),
      ping: async () => {
        await client.query('SELECT 1');
      },
      close: async () => {
        await client.close();
        lock?.release();
      },
    };
  } catch (error) {
    lock?.release();
    throw error;
  }
}

async function openPostgres(url: string, poolSize: number, migrate: boolean): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: 5_000 });
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  if (migrate) {
    // A failed start (say, a role that may not run DDL) must not leave a pool of open connections.
    await migratePostgres(pool).catch(async (error: unknown) => {
      await pool.end().catch(() => {});
      throw error;
    });
  }
  const db = drizzleNodePg(pool, { schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    leaderLock: (lockId) => new PinnedAdvisoryLock(url, lockId),
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    close: async () => {
      await pool.end();
    },
  };
}

async function migratePostgres(pool: pg.Pool): Promise<void> {
  const migrator = await pool.connect();
  try {
    // Several nodes may start at once; one migrates while the others wait on the lock.
    await migrator.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
    try {
      await migrateNodePg(drizzleNodePg(migrator), { migrationsFolder });
    } finally {
      await migrator.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
    }
  } finally {
    migrator.release();
  }
}

/**
 * A session advisory lock on a connection of its own: through a pool, lock and unlock could land
 * on different connections and the lock would leak.
 */
class PinnedAdvisoryLock implements LeaderLock {
  private client: pg.Client | null = null;
  private held = false;

  constructor(
    private readonly url: string,
    private readonly lockId: number,
  ) {}

  async tryAcquire(): Promise<boolean> {
    try {
      if (!this.client) {
        const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000 });
        client.on('error', () => this.drop(client));
        client.on('end', () => this.drop(client));
        await client.connect();
        this.client = client;
      }
      if (this.held) {
        await this.client.query('SELECT 1'); // still connected means still held
        return true;
      }
      const result = await this.client.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1) AS ok', [this.lockId]);
      this.held = result.rows[0]?.ok === true;
      return this.held;
    } catch {
      if (this.client) this.drop(this.client);
      return false;
    }
  }

  async release(): Promise<void> {
    const client = this.client;
    this.client = null;
    this.held = false;
    if (client) await client.end().catch(() => {});
  }

  private drop(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = null;
    this.held = false;
    client.end().catch(() => {});
  }
}
