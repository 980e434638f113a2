import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { sql } from 'drizzle-orm';
import { drizzle as drizzleNodePg } from 'drizzle-orm/node-postgres';
import { migrate as migrateNodePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { LanePool, reservedFor, type LaneGate } from './lanes.ts';
import { PgliteDirLock } from './pgliteLock.ts';
import { pgliteDiskTemplateEnabled, pgliteTemplateEnabled, pgliteTemplatePath, readPgliteTemplate, writePgliteTemplate } from './pgliteTemplate.ts';
import * as schema from './schema.ts';
import type { Db } from './sql.ts';
import { StatementCounter, countStatements } from './statements.ts';

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
  /** Every statement sent, by the store operation that sent it (statements.ts). */
  statements: StatementCounter;
  /** The lanes in front of the connections (lanes.ts): what waits, and how long it waited. */
  lanes: LaneGate;
  /** Throws when the database cannot answer a trivial query. */
  ping(): Promise<void>;
  /**
   * The embedded engine's memory (its worker thread), or null for an external Postgres or when
   * the worker does not answer within a second.
   */
  embeddedMemory(): Promise<EmbeddedMemory | null>;
  /**
   * An online backup of the embedded database (embeddedBackup.ts): a gzipped tar of its data
   * directory, copied by the engine itself between two statements outside any transaction, while
   * the database keeps serving. Null for an external Postgres (pg_dump backs that up).
   */
  embeddedBackup: (() => Promise<Uint8Array>) | null;
  close(): Promise<void>;
}

export interface EmbeddedMemory {
  /** PGlite's WebAssembly linear memory: grows on demand, never shrinks. */
  wasmBytes: number;
  /** The worker isolate's JS heap in use and its external (off-heap) memory. */
  heapUsedBytes: number;
  externalBytes: number;
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
      /** How long work waits for a free connection before it fails, in ms. Default 5,000. */
      connectionWaitMs?: number;
      /** Postgres cancels a statement after this long, in ms. Default STATEMENT_TIMEOUT_MS. */
      statementTimeoutMs?: number;
    }
  /** `dataDir` undefined means in memory (tests). */
  | { kind: 'pglite'; dataDir?: string };

/** Opens the database and applies every pending migration before returning (unless `migrate: false`). */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  return options.kind === 'postgres'
    ? openPostgres(options.url, options.poolSize ?? 10, options.migrate ?? true, options.connectionWaitMs ?? 5_000, options.statementTimeoutMs ?? STATEMENT_TIMEOUT_MS)
    : openPglite(options.dataDir);
}

async function openPglite(dataDir: string | undefined): Promise<Database> {
  let lock: PgliteDirLock | undefined;
  if (dataDir) {
    lock = PgliteDirLock.acquire(dataDir);
    mkdirSync(dataDir, { recursive: true });
  }
  let engine: EmbeddedEngine | undefined;
  try {
    engine = await startEmbeddedEngine(dataDir);
    const running = engine;
    return await databaseOnEngine(running, async () => {
      await running.stop();
      lock?.release();
    });
  } catch (error) {
    await engine?.stop().catch(() => {});
    lock?.release();
    throw error;
  }
}

/**
 * Starts the engine; in memory (tests, benches) from the migrated template when there is one, and a
 * new directory on disk too when test servers ask for it (pgliteDiskTemplateEnabled).
 */
async function startEmbeddedEngine(dataDir: string | undefined): Promise<EmbeddedEngine> {
  const seeded = dataDir ? pgliteDiskTemplateEnabled() && !existsSync(join(dataDir, 'PG_VERSION')) : pgliteTemplateEnabled();
  const templatePath = seeded ? pgliteTemplatePath(migrationsFolder) : null;
  const template = templatePath ? readPgliteTemplate(templatePath) : null;
  const engine = await EmbeddedEngine.start(dataDir, template);
  if (templatePath && !template) engine.writeTemplateTo = templatePath;
  return engine;
}

/**
 * A fresh pool, statement counter and lane gate on a running engine, with every pending
 * migration applied; `release` runs when the database is closed (after its pool has ended).
 */
async function databaseOnEngine(engine: EmbeddedEngine, release: () => Promise<void>): Promise<Database> {
  // PGlite is one backend, so one connection; statements queue in front of it by lane
  // (lanes.ts: renewals and handshakes first). No connect timeout: the engine is in this
  // process, not on a network.
  const pool = new LanePool({ host: engine.socketDir, port: EMBEDDED_PORT, user: 'postgres', database: 'postgres', max: 1 }, 0);
  pool.on('error', () => {});
  const statements = new StatementCounter();
  countStatements(pool, statements);
  await migratePostgres(pool).catch(async (error: unknown) => {
    await pool.end().catch(() => {});
    throw error;
  });
  if (engine.writeTemplateTo) {
    const dump = await engine.dump();
    if (dump) writePgliteTemplate(engine.writeTemplateTo, dump);
    engine.writeTemplateTo = null;
  }
  const db = drizzleNodePg(pool, { schema }) as unknown as Db;
  let closing: Promise<void> | null = null;
  return {
    kind: 'pglite',
    db,
    statements,
    lanes: pool.gate,
    // One process owns the directory (the lock above), so it is always the leader.
    leaderLock: () => ({ tryAcquire: async () => true, release: async () => {} }),
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    embeddedMemory: () => engine.memory(),
    embeddedBackup: () => engine.backup(),
    close: () => {
      closing ??= (async () => {
        await pool.end();
        await release();
      })();
      return closing;
    },
  };
}

/**
 * Tests only (`openTestDatabase` in testing.ts): an in-memory database on an engine recycled from
 * an earlier test file of this process when there is one. Starting an engine costs 2-4 s of CPU
 * (the WebAssembly engine's start-up and the template's unpacking), emptying one about 50 ms, and
 * the unit suites open one in each of about 40 files.
 *
 * What the test gets is what a fresh start gives: a new pool, statement counter and lane gate, the
 * migrations checked, and a database whose every table was emptied (sequences restarted) and whose
 * session state was discarded. An engine is recycled only when its schema (tables, columns,
 * functions, triggers and their enabled state) is exactly what it was when the engine started; a
 * file that changed it gets a fresh engine instead. Closing the database hands the engine back;
 * the one kept is unreferenced, so it never keeps the process alive.
 */
export async function openRecycledPglite(): Promise<Database> {
  const spares = recycledEngines();
  let engine = spares.pop();
  if (engine) {
    engine.ref();
    const emptied = await engine.reset().catch(() => false);
    if (!emptied) {
      await engine.stop().catch(() => {});
      engine = undefined;
    }
  }
  const fresh = !engine;
  engine ??= await startEmbeddedEngine(undefined);
  const running = engine;
  let recyclable = true;
  try {
    const database = await databaseOnEngine(running, async () => {
      if (spares.length > 0 || !recyclable) return running.stop();
      running.unref();
      spares.push(running);
    });
    if (fresh) recyclable = await running.markSchema();
    return database;
  } catch (error) {
    await running.stop().catch(() => {});
    throw error;
  }
}

/** Kept on globalThis: a test runner may evaluate this module again in the same process. */
function recycledEngines(): EmbeddedEngine[] {
  const key = Symbol.for('wb.db.recycledEmbeddedEngines');
  const holder = globalThis as { [key]?: EmbeddedEngine[] };
  return (holder[key] ??= []);
}

/** node-postgres finds the socket `.s.PGSQL.<port>` in the directory given as host. */
const EMBEDDED_PORT = 5432;

/**
 * PGlite in a worker thread (pgliteWorker.mjs), reached over a unix socket in a fresh private
 * directory (mode 0700), so its statements never run on the main thread's event loop.
 */
class EmbeddedEngine {
  private stopping: Promise<void> | null = null;
  /** Where to write the template once the engine's database is migrated (no template yet). */
  writeTemplateTo: string | null = null;

  private constructor(
    private readonly worker: Worker,
    readonly socketDir: string,
  ) {}

  static async start(dataDir: string | undefined, template: Uint8Array | null = null): Promise<EmbeddedEngine> {
    const socketDir = mkdtempSync(join(tmpdir(), 'wb-pglite-'));
    const worker = new Worker(new URL('./pgliteWorker.mjs', import.meta.url), {
      workerData: { dataDir: dataDir ?? null, socketPath: join(socketDir, `.s.PGSQL.${EMBEDDED_PORT}`), template },
      // The worker is plain JavaScript: it needs no loader flags from the parent.
      execArgv: [],
    });
    const engine = new EmbeddedEngine(worker, socketDir);
    try {
      await new Promise<void>((resolve, reject) => {
        worker.on('message', (message: WorkerMessage) => {
          if ('ready' in message) resolve();
          else if ('failed' in message) reject(new Error(`embedded database failed to start: ${message.failed}`));
          else if ('warning' in message) process.emitWarning(message.warning);
        });
        worker.once('error', reject);
        worker.once('exit', (code) => reject(new Error(`embedded database worker exited (code ${code}) while starting`)));
      });
    } catch (error) {
      await engine.stop();
      throw error;
    }
    worker.on('exit', (code) => {
      if (engine.stopping) return;
      // Nothing can be written any more; a supervisor restarting the process is the way back.
      process.emitWarning(`embedded database worker exited unexpectedly (code ${code})`);
    });
    return engine;
  }

  /** The database's files as a tarball (for the in-memory template), or null if it took too long. */
  dump(): Promise<Uint8Array | null> {
    return new Promise((resolve) => {
      const onMessage = (message: WorkerMessage) => {
        if ('dump' in message) done(message.dump);
      };
      const timer = setTimeout(() => done(null), 30_000);
      const done = (dump: Uint8Array | null) => {
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        resolve(dump);
      };
      this.worker.on('message', onMessage);
      this.worker.postMessage('dump');
    });
  }

  /**
   * Tests only (openRecycledPglite): empties every table and discards the session's state, while
   * no connection is open. False when the schema is no longer the one the engine started with.
   */
  reset(): Promise<boolean> {
    return new Promise((resolve, reject) => {
      const onMessage = (message: WorkerMessage) => {
        if (!('reset' in message)) return;
        this.worker.off('message', onMessage);
        if (message.reset === true) resolve(true);
        else if (message.reset === false) resolve(false);
        else reject(new Error(`embedded database reset failed: ${message.reset}`));
      };
      this.worker.on('message', onMessage);
      this.worker.postMessage('reset');
    });
  }

  /** Tests only: records the migrated schema that `reset` compares against. */
  markSchema(): Promise<boolean> {
    return new Promise((resolve) => {
      const onMessage = (message: WorkerMessage) => {
        if (!('marked' in message)) return;
        this.worker.off('message', onMessage);
        resolve(message.marked);
      };
      this.worker.on('message', onMessage);
      this.worker.postMessage('mark schema');
    });
  }

  ref(): void {
    this.worker.ref();
  }

  unref(): void {
    this.worker.unref();
  }

  private backups = 0;

  /**
   * A copy of the database taken by the worker at its next statement boundary outside a
   * transaction (pgliteWorker.mjs). Fails after `waitMs` when no such boundary comes (a
   * transaction held open that long), and at once when the engine is stopping.
   */
  backup(waitMs = 60_000): Promise<Uint8Array> {
    if (this.stopping) return Promise.reject(new Error('the embedded database is shutting down'));
    const id = ++this.backups;
    return new Promise((resolve, reject) => {
      const onMessage = (message: WorkerMessage) => {
        if (!('backup' in message) || message.backup !== id) return;
        done();
        if ('archive' in message) resolve(message.archive);
        else reject(new Error(`embedded database backup failed: ${message.failed}`));
      };
      const onExit = () => {
        done();
        reject(new Error('the embedded database stopped during the backup'));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`the embedded database found no moment between transactions within ${waitMs} ms`));
      }, waitMs);
      const done = () => {
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        this.worker.off('exit', onExit);
      };
      this.worker.on('message', onMessage);
      this.worker.once('exit', onExit);
      this.worker.postMessage({ backup: id });
    });
  }

  memory(): Promise<EmbeddedMemory | null> {
    if (this.stopping) return Promise.resolve(null);
    return new Promise((resolve) => {
      const onMessage = (message: WorkerMessage) => {
        if (!('memory' in message)) return;
        done(message.memory);
      };
      const timer = setTimeout(() => done(null), 1_000);
      const done = (memory: EmbeddedMemory | null) => {
        clearTimeout(timer);
        this.worker.off('message', onMessage);
        resolve(memory);
      };
      this.worker.on('message', onMessage);
      this.worker.postMessage('memory');
    });
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => {
        const done = () => resolve();
        this.worker.on('message', (message: WorkerMessage) => {
          if ('closed' in message) done();
        });
        this.worker.once('exit', done);
      });
      this.worker.postMessage('close');
      // PGlite flushes its files on close; give it time, then make sure the thread is gone.
      await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      await this.worker.terminate();
      rmSync(this.socketDir, { recursive: true, force: true });
    })();
    return this.stopping;
  }
}

type WorkerMessage =
  | { ready: true }
  | { closed: true }
  | { failed: string }
  | { warning: string }
  | { memory: EmbeddedMemory }
  | { dump: Uint8Array }
  | { reset: boolean | string }
  | { backup: number; archive: Uint8Array }
  | { backup: number; failed: string }
  | { marked: boolean };

/**
 * Statements on the server's pool are cancelled by Postgres after this long (I14): a request is
 * answered `unavailable` at its 4 s deadline, and its query must not keep a connection and the
 * database busy behind it. Migrations run before the limit is set.
 */
export const STATEMENT_TIMEOUT_MS = 5_000;

async function openPostgres(url: string, poolSize: number, migrate: boolean, connectionWaitMs: number, statementTimeoutMs: number): Promise<Database> {
  // TCP keep-alive: a connection to a database that vanished without a reset (a black-holed
  // network) is found dead by the kernel instead of holding its pool slot until packets flow again.
  // Renewals and handshakes keep connections of their own (lanes.ts): normal work may hold all
  // but reservedFor(poolSize) of them. Waiting for a connection gives up after `connectionWaitMs`
  // (5 s unless told), in either lane.
  const pool = new LanePool(
    {
      connectionString: url,
      max: poolSize,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    },
    reservedFor(poolSize),
    connectionWaitMs,
  );
  // An idle client losing its connection (database restart) must not crash the process.
  pool.on('error', () => {});
  const statements = new StatementCounter();
  countStatements(pool, statements);
  if (migrate) {
    // A failed start (say, a role that may not run DDL) must not leave a pool of open connections.
    await migratePostgres(pool).catch(async (error: unknown) => {
      await pool.end().catch(() => {});
      throw error;
    });
  }
  // Every connection opened from now on, and the migrator's (already idle in the pool), get the limit.
  pool.on('connect', (client) => {
    client.query(`SET statement_timeout = ${statementTimeoutMs}`).catch(() => {});
  });
  await Promise.all(Array.from({ length: pool.idleCount }, () => pool.query(`SET statement_timeout = ${statementTimeoutMs}`)));
  const db = drizzleNodePg(pool, { schema }) as unknown as Db;
  return {
    kind: 'postgres',
    db,
    statements,
    lanes: pool.gate,
    leaderLock: (lockId) => new PinnedAdvisoryLock(url, lockId),
    ping: async () => {
      await db.execute(sql`SELECT 1`);
    },
    embeddedMemory: async () => null,
    embeddedBackup: null,
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
        const client = new pg.Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
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
