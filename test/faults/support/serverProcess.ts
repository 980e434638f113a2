/**
 * Real server processes for the fault suite: spawned like the release drill's (e2e/drill/drillServer.ts),
 * but each piece separate so a test can kill -9 a process and start another on the same database,
 * point one at a TCP proxy, or shift its clock. Loopback only; every child is killed and every
 * scratch database dropped by the test's afterAll.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { testServerBuild } from '../../../scripts/test-server.mjs';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../..');

/** Short lease and lock timings, as in the drill: a silent client is noticed within seconds. */
export const FAULT_TIMINGS = {
  LEASE_TTL_MS: 4_000,
  LEASE_RENEW_MS: 1_000,
  SWEEP_INTERVAL_MS: 250,
  LOCK_FIRST_TERM_MS: 2_000,
  LOCK_TTL_MS: 4_000,
} as const;

/** Why a real-Postgres fault cannot run here, or null. Under CI a missing Postgres fails instead. */
export function postgresSkipReason(): string | null {
  if (process.env.TEST_DATABASE_URL) return null;
  if (process.env.CI) throw new Error('CI is set but TEST_DATABASE_URL is not: the fault suite must run on real Postgres on CI.');
  return 'TEST_DATABASE_URL is not set';
}

/**
 * A free loopback port: from FAULTS_PORTS ("3331-3339") when set, so runs sharing a machine keep
 * to the ports they were given; otherwise one the system picks. Fault files run in parallel
 * workers (processes), so a port of the range is claimed by a lock file naming this process
 * (taken over when that process is gone) before it is probed.
 */
export async function freePort(): Promise<number> {
  const range = /^(\d+)-(\d+)$/.exec(process.env.FAULTS_PORTS ?? '');
  if (!range) return probePort(0);
  for (let port = Number(range[1]); port <= Number(range[2]); port++) {
    if (!claimPort(port)) continue;
    const got = await probePort(port).catch(() => 0);
    if (got) return got;
  }
  throw new Error(`no free port left in FAULTS_PORTS=${process.env.FAULTS_PORTS}`);
}

/** Ports of FAULTS_PORTS this process holds (released when it exits). */
const claimed = new Set<string>();
process.once('exit', () => {
  for (const path of claimed) rmSync(path, { force: true });
});

function claimPort(port: number): boolean {
  const path = join(tmpdir(), `wb-faults-port-${port}.lock`);
  if (claimed.has(path)) return false;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      writeFileSync(path, String(process.pid), { flag: 'wx' });
      claimed.add(path);
      return true;
    } catch {
      let holder: number;
      try {
        holder = Number(readFileSync(path, 'utf8'));
      } catch {
        continue; // removed meanwhile: try again
      }
      try {
        process.kill(holder, 0);
        return false; // another live process holds it
      } catch {
        rmSync(path, { force: true }); // its process is gone
      }
    }
  }
  return false;
}

function probePort(port: number): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer().listen(port, '127.0.0.1', () => {
      const address = probe.address();
      probe.close(() => done(typeof address === 'object' && address ? address.port : 0));
    });
    probe.on('error', fail);
  });
}

async function admin(statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

/** A fresh database on TEST_DATABASE_URL's server; `drop` removes it (WITH FORCE). */
export async function createScratchDatabase(): Promise<ScratchDatabase> {
  const name = `wb_fault_${randomBytes(5).toString('hex')}`;
  await admin(`CREATE DATABASE ${name}`);
  // Commits need not wait for the WAL flush (as packages/db/src/testing.ts): nothing here crashes Postgres.
  await admin(`ALTER DATABASE ${name} SET synchronous_commit = off`);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.pathname = `/${name}`;
  return { name, url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** Runs a query on a database URL with a connection of its own (for reading what was stored). */
export async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end();
  }
}

export interface ServerProcessOptions {
  /** postgres://… (real Postgres, possibly through a proxy); unset: PGLITE_DIR must be given. */
  databaseUrl?: string;
  pgliteDir?: string;
  port?: number;
  env?: Record<string, string>;
  /** Modules loaded with --import after tsx (e.g. a clock shift). */
  preload?: string[];
  /** Wait for /healthz (the sweeper completed a pass); default true. */
  waitHealthy?: boolean;
}

export interface ServerProcess {
  url: string;
  port: number;
  child: ChildProcess;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGKILL: no shutdown handler runs, nothing is flushed. */
  kill9(): Promise<void>;
  /** SIGTERM and wait (the graceful path); a no-op when already gone. */
  stop(): Promise<void>;
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;

/** Spawns `node --import tsx apps/server/src/main.ts` in test mode and waits until it is healthy. */
export async function spawnServer(options: ServerProcessOptions): Promise<ServerProcess> {
  const port = options.port ?? (await freePort());
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    PORT: String(port),
    HOST: '127.0.0.1',
    LOG_LEVEL: 'warn',
    WB_TEST_HOOKS: '1',
    NODE_ENV: 'test',
    WEB_DIST: '/nonexistent',
    // A new embedded data directory starts from the migrated template, not initdb (pgliteTemplate.ts).
    WB_PGLITE_TEMPLATE_DISK: 'on',
    ...Object.fromEntries(Object.entries(FAULT_TIMINGS).map(([k, v]) => [k, String(v)])),
    ...options.env,
  };
  if (options.databaseUrl) {
    env.DATABASE_URL = options.databaseUrl;
    delete env.PGLITE_DIR;
  } else {
    if (!options.pgliteDir) throw new Error('spawnServer: give databaseUrl or pgliteDir');
    delete env.DATABASE_URL;
    env.PGLITE_DIR = options.pgliteDir;
  }
  // The compiled server (scripts/test-server.mjs); tsx only to load a fault hook's preload.
  const build = await testServerBuild();
  const preload = (options.preload ?? []).flatMap((p) => ['--import', p]);
  const args = [...(preload.length > 0 ? ['--import', 'tsx', ...preload] : []), build.entry];
  env.WB_PGLITE_TEMPLATE_DIR = options.env?.WB_PGLITE_TEMPLATE_DIR ?? build.env.WB_PGLITE_TEMPLATE_DIR!;
  const child = spawn(process.execPath, args, { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  live.add(child);
  child.once('exit', () => live.delete(child));
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
    if (output.length > 4_000_000) output = output.slice(-2_000_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const url = `http://127.0.0.1:${port}`;
  const server: ServerProcess = {
    url,
    port,
    child,
    output: () => output,
    kill9: async () => {
      if (exited(child)) return;
      const gone = new Promise((done) => child.once('exit', done));
      child.kill('SIGKILL');
      await gone;
    },
    stop: async () => {
      if (exited(child)) return;
      const gone = new Promise((done) => child.once('exit', done));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(timer);
    },
  };
  if (options.waitHealthy === false) return server;
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (exited(child)) throw new Error(`server exited (${child.exitCode ?? child.signalCode}): ${output.slice(-3_000)}`);
    try {
      if ((await fetch(`${url}/healthz`)).ok) return server;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await server.kill9();
      throw new Error(`server did not become healthy: ${output.slice(-3_000)}`);
    }
    await new Promise((done) => setTimeout(done, 200));
  }
}

/** Children still running; `killAll` is the afterAll safety net of every fault file. */
const live = new Set<ChildProcess>();
/** Puts another child (a private redis-server) under `killAll`'s care. */
export function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
}
export async function killAll(): Promise<void> {
  await Promise.all(
    [...live].map(
      (child) =>
        new Promise<void>((done) => {
          if (exited(child)) return done();
          child.once('exit', () => done());
          child.kill('SIGKILL');
        }),
    ),
  );
}

/** Polls `probe` until it returns a truthy value; fails with `what` after `ms`. */
export async function waitFor<T>(probe: () => Promise<T | null | undefined | false> | T | null | undefined | false, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 100));
  }
}
