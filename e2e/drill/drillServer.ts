import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { testServerBuild } from '../../scripts/test-server.mjs';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../..');
/** How long a drill server may take to answer /healthz after its start. */
const HEALTH_WAIT_MS = 300_000;

/**
 * Lease and lock timings of the drill: short, so a lid closes and is noticed within seconds. A term
 * of six renewals: on a CI machine running the browser suite beside the drill, a renewing page's
 * timers and the server were starved for four seconds at once, and the teacher's lease expired
 * (a true outcome of the contract, but not the drill's scenario).
 */
export const DRILL_TIMINGS = {
  LEASE_TTL_MS: 6_000,
  LEASE_RENEW_MS: 1_000,
  SWEEP_INTERVAL_MS: 250,
  LOCK_FIRST_TERM_MS: 2_000,
  LOCK_TTL_MS: 4_000,
} as const;

export type DrillDatabase = 'postgres' | 'pglite';

/** Why the drill cannot run on real Postgres here, or null. On CI a missing Postgres fails. */
export function postgresSkipReason(): string | null {
  if (process.env.TEST_DATABASE_URL) return null;
  if (process.env.CI) throw new Error('CI is set but TEST_DATABASE_URL is not: the drill must run on real Postgres on CI.');
  return 'TEST_DATABASE_URL is not set';
}

export interface DrillServer {
  url: string;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((done) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh Postgres database on TEST_DATABASE_URL's server, for the nodes of a cluster to share. */
export async function createDrillDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `wb_cluster_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  await admin(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A real server process in test mode (fault-injection hooks on) on a fresh database: a new
 * Postgres database on TEST_DATABASE_URL's server, or a new embedded PGlite directory; or, for a
 * node of a cluster, the `databaseUrl` given (with `env` such as REDIS_URL).
 */
export async function startDrillServer(
  database: DrillDatabase,
  options: { databaseUrl?: string; env?: Record<string, string> } = {},
): Promise<DrillServer> {
  const port = await freePort();
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WB_TEST_HOOKS: '1',
    NODE_ENV: 'test',
    // A new embedded data directory starts from the migrated template, not initdb (pgliteTemplate.ts).
    WB_PGLITE_TEMPLATE_DISK: 'on',
    ...Object.fromEntries(Object.entries(DRILL_TIMINGS).map(([k, v]) => [k, String(v)])),
    ...options.env,
  };
  let cleanup: () => Promise<void>;
  if (options.databaseUrl) {
    // A node of a cluster: the database is the caller's (createDrillDatabase), shared by its nodes.
    env.DATABASE_URL = options.databaseUrl;
    cleanup = async () => {};
  } else if (database === 'postgres') {
    const name = `wb_drill_${randomBytes(5).toString('hex')}`;
    await admin(`CREATE DATABASE ${name}`);
    // Commits need not wait for the WAL flush (as packages/db/src/testing.ts): nothing here crashes Postgres.
    await admin(`ALTER DATABASE ${name} SET synchronous_commit = off`);
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.pathname = `/${name}`;
    env.DATABASE_URL = url.toString();
    cleanup = () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'wb-drill-'));
    env.PGLITE_DIR = join(dir, 'pglite');
    delete env.DATABASE_URL;
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  // The compiled server (scripts/test-server.mjs), as the fault suite runs it.
  const build = await testServerBuild();
  Object.assign(env, build.env);
  const child: ChildProcess = spawn(process.execPath, [build.entry], {
    cwd: repoRoot,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4_000);
  });
  const url = `http://127.0.0.1:${port}`;
  // Inside the drill's beforeAll limit (320 s): an embedded database's first start beside a
  // loaded CI run (the other lanes, the e2e server making the same template) has taken over 120 s.
  const deadline = Date.now() + HEALTH_WAIT_MS;
  let lastHealth = 'never answered';
  for (;;) {
    if (child.exitCode !== null) {
      await cleanup().catch(() => {});
      throw new Error(`drill server exited (${child.exitCode}): ${stderr}`);
    }
    try {
      const health = await fetch(`${url}/healthz`);
      if (health.ok) break;
      lastHealth = `${health.status} ${await health.text()}`;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // A server that never became healthy must not outlive the run (nothing else will stop it).
      child.kill('SIGKILL');
      await cleanup().catch(() => {});
      throw new Error(`drill server did not become healthy within ${HEALTH_WAIT_MS / 1000} s (last /healthz: ${lastHealth}): ${stderr}`);
    }
    await new Promise((done) => setTimeout(done, 250));
  }
  return {
    url,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((done) => child.once('exit', done));
      }
      await cleanup();
    },
  };
}
