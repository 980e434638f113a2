/**
 * CPU time and resident memory of another process, read from /proc (Linux only). The benchmark
 * measures the server from outside so that measuring costs the server nothing.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

const getconf = (name: string, fallback: number): number => {
  try {
    return Number(execFileSync('getconf', [name], { encoding: 'utf8' }).trim()) || fallback;
  } catch {
    return fallback;
  }
};
const CLOCK_TICKS_PER_SECOND = getconf('CLK_TCK', 100);
const PAGE_BYTES = getconf('PAGESIZE', 4096);

export interface ProcSample {
  /** performance.now() in this process when read. */
  at: number;
  /** User + system CPU seconds since the process started. */
  cpuSeconds: number;
  rssBytes: number;
  /** Write and read system calls since the process started (/proc/<pid>/io; NaN where unreadable): socket writes, mostly. */
  writeCalls: number;
  readCalls: number;
}

export function readProc(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may contain spaces and parentheses: split after its closing one.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const rssPages = Number(fields[21]);
  const { writeCalls, readCalls } = ioCalls(pid);
  return { at: performance.now(), cpuSeconds: (utime + stime) / CLOCK_TICKS_PER_SECOND, rssBytes: rssPages * PAGE_BYTES, writeCalls, readCalls };
}

function ioCalls(pid: number): { writeCalls: number; readCalls: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)$`, 'm').exec(io)?.[1] ?? Number.NaN);
    return { writeCalls: field('syscw'), readCalls: field('syscr') };
  } catch {
    return { writeCalls: Number.NaN, readCalls: Number.NaN };
  }
}

/** Share of one core used between two samples (1.0 = one core fully busy). */
export function coresUsed(from: ProcSample, to: ProcSample): number {
  const seconds = (to.at - from.at) / 1000;
  return seconds > 0 ? (to.cpuSeconds - from.cpuSeconds) / seconds : 0;
}

/** The 1-, 5- and 15-minute load averages: every figure is reported next to them (shared machine). */
export function loadAverage(): [number, number, number] {
  const [one, five, fifteen] = readFileSync('/proc/loadavg', 'utf8').split(' ').map(Number);
  return [one ?? 0, five ?? 0, fifteen ?? 0];
}
