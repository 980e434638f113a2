/**
 * Where a window's CPU went (Linux /proc; figures only, never asserted): the server process's main
 * thread (the event loop), its busiest other thread (the embedded database's worker when PGlite
 * runs in it), its remaining threads (GC, libuv), and the whole machine's busy share. On another
 * system every figure reads 0.
 */
import { readFileSync, readdirSync } from 'node:fs';

const TICK_MS = 10; // USER_HZ is 100 on Linux

/** CPU time (ms) of each thread of `pid`, by thread id. */
function threadCpu(pid: number): Map<number, number> {
  const threads = new Map<number, number>();
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return threads;
  }
  for (const tid of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      // Fields after the command (which may hold spaces) start after the last ')'.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      threads.set(Number(tid), (Number(fields[11]) + Number(fields[12])) * TICK_MS);
    } catch {
      // the thread ended meanwhile
    }
  }
  return threads;
}

/** The machine's busy and total CPU time so far (ms, all cores together). */
function machineCpu(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0]!;
    const values = line.trim().split(/\s+/).slice(1).map(Number);
    const total = values.reduce((sum, v) => sum + v, 0);
    const idle = (values[3] ?? 0) + (values[4] ?? 0);
    return { busy: (total - idle) * TICK_MS, total: total * TICK_MS };
  } catch {
    return { busy: 0, total: 0 };
  }
}

export interface CpuShare {
  /** Wall time of the window (ms). */
  wallMs: number;
  /** The server's event loop thread (ms of CPU). */
  mainMs: number;
  /** The server's busiest other thread: the PGlite worker when the database is embedded (ms). */
  busiestOtherMs: number;
  /** The server's remaining threads (ms). */
  restMs: number;
  /** The machine's cores busy over the window, in cores (2.0 = both cores all the time). */
  machineCores: number;
}

/** Starts a window over `pid`; the returned function ends it and tells where the CPU went. */
export function cpuWindow(pid: number): () => CpuShare {
  const started = performance.now();
  const before = threadCpu(pid);
  const machineBefore = machineCpu();
  return () => {
    const after = threadCpu(pid);
    const machineAfter = machineCpu();
    const wallMs = performance.now() - started;
    const spent = [...after].map(([tid, ms]) => ({ tid, ms: ms - (before.get(tid) ?? 0) }));
    const mainMs = spent.find((t) => t.tid === pid)?.ms ?? 0;
    const others = spent.filter((t) => t.tid !== pid).sort((a, b) => b.ms - a.ms);
    const busiestOtherMs = others[0]?.ms ?? 0;
    const restMs = others.slice(1).reduce((sum, t) => sum + t.ms, 0);
    const machineCores = wallMs > 0 ? (machineAfter.busy - machineBefore.busy) / wallMs : 0;
    return { wallMs, mainMs, busiestOtherMs, restMs, machineCores };
  };
}

/** One window's CPU as a figure: "main 3,100 / db 2,400 / rest 300 ms of 8,000 ms; machine 1.9 cores". */
export function describeCpu(share: CpuShare): string {
  const f = (ms: number) => Math.round(ms).toLocaleString('en-US');
  return `main ${f(share.mainMs)} / busiest other thread ${f(share.busiestOtherMs)} / rest ${f(share.restMs)} ms in ${f(share.wallMs)} ms; machine ${share.machineCores.toFixed(2)} cores busy`;
}

/** The sum of a Prometheus counter's samples whose labels contain `labels` (text format). */
export function counterSum(metricsText: string, name: string, labels = ''): number {
  let sum = 0;
  for (const line of metricsText.split('\n')) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (rest[0] !== ' ' && rest[0] !== '{') continue;
    if (labels && !rest.includes(labels)) continue;
    sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
