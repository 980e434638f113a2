/**
 * A server process under test: the product (apps/server on a fresh PGlite directory, or on a
 * scratch Postgres database) or the bare relay. Started with spawn so its pid is the Node process
 * itself, whose CPU and RSS are read from /proc without costing it anything.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { placement } from './placement.ts';
import { readProc, type ProcSample } from './procStats.ts';

export const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');

/**
 * Where the product server is started from: this checkout, or another one named by
 * BENCH_PRODUCT_ROOT (a worktree of an earlier commit, installed), so one harness measures two
 * builds of the server in the same session (before/after comparisons of a change).
 */
export const productRoot = process.env.BENCH_PRODUCT_ROOT ? resolve(process.env.BENCH_PRODUCT_ROOT) : repoRoot;

export type ServerKind = 'product' | 'bare';

/** How long a server may take to start (PGlite's init and migrations: 10-30 s idle, minutes on a machine shared with other work). */
const START_BOUND_MS = Number(process.env.BENCH_SERVER_START_MS ?? 180_000);

export interface ServerOptions {
  /** Extra environment for the product (LEASE_TTL_MS, CURSOR_TICK_MS, ...). */
  env?: Record<string, string>;
  /** e.g. ['--cpu-prof', '--cpu-prof-dir=...'] to see where the server's time goes. */
  nodeFlags?: string[];
  /** The checkout the product is started from (default: BENCH_PRODUCT_ROOT or this one): the A/B's baseline build. */
  root?: string;
  /** Its port (default: BENCH_PRODUCT_PORT / BENCH_BARE_PORT, else any free one). */
  port?: number;
}

export class ServerUnderTest {
  private constructor(
    readonly kind: ServerKind,
    readonly url: string,
    private readonly child: ChildProcess,
    private readonly dataDir: string | null,
    readonly output: string[],
  ) {}

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('server has no pid');
    return pid;
  }

  static async start(kind: ServerKind, options: ServerOptions = {}): Promise<ServerUnderTest> {
    const dataDir = kind === 'product' ? mkdtempSync(join(tmpdir(), 'wb-bench-pglite-')) : null;
    const script = kind === 'product' ? 'apps/server/src/main.ts' : 'bench/bareRelay.ts';
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // BENCH_PRODUCT_PORT / BENCH_BARE_PORT: the servers on given ports (a machine shared by several runs); else any free one.
      PORT: options.port !== undefined ? String(options.port) : kind === 'product' ? (process.env.BENCH_PRODUCT_PORT ?? '0') : (process.env.BENCH_BARE_PORT ?? '0'),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      ...(dataDir ? { PGLITE_DIR: dataDir } : {}),
      ...options.env,
    };
    // The server under test must not inherit a DATABASE_URL meant for something else.
    if (!options.env?.DATABASE_URL) delete env.DATABASE_URL;
    const child = spawn(process.execPath, [...(options.nodeFlags ?? []), '--import', 'tsx', script], {
      cwd: kind === 'product' ? (options.root ? resolve(options.root) : productRoot) : repoRoot,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Placed from its first instruction: when pinned, its start (PGlite's init) must not run on
    // the generators' core, and the threads it starts inherit the server's.
    if (child.pid !== undefined) placement.register(child.pid, 'server');
    const output: string[] = [];
    const url = await new Promise<string>((resolveUrl, reject) => {
      const timer = setTimeout(() => {
        // A server that never came up is not left running behind the failed run.
        if (child.pid !== undefined) placement.unregister(child.pid);
        child.kill('SIGKILL');
        if (dataDir) rmSync(dataDir, { recursive: true, force: true });
        reject(new Error(`${kind} server did not start in ${START_BOUND_MS / 1000} s:\n${output.join('')}`));
      }, START_BOUND_MS);
      const onData = (chunk: Buffer) => {
        const text = chunk.toString('utf8');
        // Keep a bounded tail of the server's output for error reports.
        output.push(text);
        if (output.length > 200) output.shift();
        const found = /running: (http:\/\/[^\s]+)/.exec(output.join(''));
        if (found?.[1]) {
          clearTimeout(timer);
          resolveUrl(found[1]);
        }
      };
      child.stdout?.on('data', onData);
      child.stderr?.on('data', onData);
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`${kind} server exited with ${code}:\n${output.join('')}`));
      });
    });
    return new ServerUnderTest(kind, url, child, dataDir, output);
  }

  sample(): ProcSample {
    return readProc(this.pid);
  }

  /** Event-loop delay p99 (ms) since the previous read: both servers reset their monitor on read. */
  async eventLoopP99Ms(): Promise<number> {
    if (this.kind === 'bare') {
      const body = (await (await fetch(`${this.url}/lag`)).json()) as { p99Seconds: number };
      return body.p99Seconds * 1000;
    }
    const metrics = await this.metrics();
    return (metrics.get('wb_nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000;
  }

  /**
   * One read for a window's edge: the event-loop delay p99 since the previous read (the read
   * resets it), the main thread's total GC seconds and the cursor batches sent so far (product
   * only; NaN for the relay).
   */
  async windowEdge(): Promise<WindowEdge> {
    if (this.kind === 'bare') return { lagP99Ms: await this.eventLoopP99Ms(), gcSeconds: Number.NaN, cursorBatches: Number.NaN, tickMs: Number.NaN, statements: {} };
    const metrics = await this.metrics();
    return {
      lagP99Ms: (metrics.get('wb_nodejs_eventloop_lag_p99_seconds') ?? Number.NaN) * 1000,
      gcSeconds: metricTotal(metrics, 'wb_nodejs_gc_duration_seconds_sum'),
      cursorBatches: metrics.get('wb_cursor_batch_size_count') ?? Number.NaN,
      tickMs: metrics.get('wb_cursor_tick_ms') ?? Number.NaN,
      statements: statementCounters(metrics),
    };
  }

  /** The product's /metrics as name{labels} -> value. */
  async metrics(): Promise<Map<string, number>> {
    if (this.kind !== 'product') return new Map();
    const text = await (await fetch(`${this.url}/metrics`)).text();
    const values = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (line.startsWith('#') || !line.trim()) continue;
      const space = line.lastIndexOf(' ');
      values.set(line.slice(0, space), Number(line.slice(space + 1)));
    }
    return values;
  }

  /** Ends the process at once (SIGKILL: a node lost mid-lesson, no drain); `stop` still cleans up after it. */
  kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve();
    const exited = new Promise<void>((resolveExit) => this.child.once('exit', () => resolveExit()));
    this.child.kill('SIGKILL');
    return exited;
  }

  async stop(): Promise<void> {
    placement.unregister(this.pid);
    if (this.child.exitCode === null && this.child.signalCode === null) {
      const exited = new Promise<void>((resolveExit) => this.child.once('exit', () => resolveExit()));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 12_000);
      await exited;
      clearTimeout(timer);
    }
    if (this.dataDir) rmSync(this.dataDir, { recursive: true, force: true });
  }
}

export interface WindowEdge {
  lagP99Ms: number;
  gcSeconds: number;
  /** Cursor batches the product has sent (one per room tick with motion), a running total. */
  cursorBatches: number;
  /** The product's cursor tick as it stood (ms). */
  tickMs: number;
  /** Every `*_statements_total` counter the product exposes, summed over its labels (running totals). */
  statements: Record<string, number>;
}

/**
 * The database statement counters in a /metrics reading: `wb_db_statements_total` by its `kind`
 * label (`db:create`, `db:renewal`, `db:handshake`, `db:sweep`, ...: every statement the product
 * sends, by what it was for), and every other counter named `..._statements_total` summed over its
 * labels (`wb_lease_renewal_statements_total`: renewal batches).
 */
export function statementCounters(metrics: ReadonlyMap<string, number>): Record<string, number> {
  const totals: Record<string, number> = {};
  for (const [key, value] of metrics) {
    const brace = key.indexOf('{');
    const name = brace === -1 ? key : key.slice(0, brace);
    if (!name.endsWith('_statements_total')) continue;
    const kind = name === 'wb_db_statements_total' ? /kind="([^"]*)"/.exec(key)?.[1] : undefined;
    const counter = kind ? `db:${kind}` : name;
    totals[counter] = (totals[counter] ?? 0) + value;
  }
  return totals;
}

/** Sum of a metric over all its label sets (e.g. wb_lease_renewals_total{decision=...}). */
export function metricTotal(metrics: Map<string, number>, name: string): number {
  let total = 0;
  for (const [key, value] of metrics) if (key === name || key.startsWith(`${name}{`)) total += value;
  return total;
}
