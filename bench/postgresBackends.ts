/**
 * The CPU the product's Postgres backends spend, read from /proc like the server's own (the
 * backends of the scratch database this run created; Postgres itself is not ours and is only
 * read, never touched). On Postgres a stroke's cost is split between the server process and its
 * backends: the server's figure alone would leave most of it out.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { readProc } from './procStats.ts';

const run = promisify(execFile);

export interface PostgresTarget {
  /** A URL psql can connect to for pg_stat_activity (the admin database the run created its own from). */
  adminUrl: string;
  /** The scratch database the product uses. */
  database: string;
}

/** CPU seconds of each backend connected to the database now, by pid. */
export async function backendCpuSeconds(target: PostgresTarget): Promise<Map<number, number>> {
  // The database name is the run's own (wb_bench_<pid>_<time>): no quoting needed beyond this.
  if (!/^[a-z0-9_]+$/.test(target.database)) throw new Error(`unexpected database name ${target.database}`);
  const { stdout } = await run('psql', [target.adminUrl, '-Atc', `SELECT pid FROM pg_stat_activity WHERE datname = '${target.database}'`]);
  const cpu = new Map<number, number>();
  for (const line of stdout.split('\n')) {
    const pid = Number(line.trim());
    if (!Number.isInteger(pid) || pid <= 0) continue;
    try {
      cpu.set(pid, readProc(pid).cpuSeconds);
    } catch {
      // The backend ended between the query and the read: it is not in the window's end either.
    }
  }
  return cpu;
}

/**
 * CPU seconds spent between two readings: for a backend in both, the difference; for one that
 * appeared meanwhile, all of its time (it started in the window); one that ended is lost (rare: the
 * pool keeps its connections).
 */
export function cpuSecondsBetween(start: ReadonlyMap<number, number>, end: ReadonlyMap<number, number>): number {
  let total = 0;
  for (const [pid, seconds] of end) total += seconds - (start.get(pid) ?? 0);
  return total;
}
