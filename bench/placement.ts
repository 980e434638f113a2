/**
 * Where the benchmark's processes run: *shared* (the kernel spreads server, generators and relay
 * over every core, as the runs before issue 19 did) or *pinned* (`--pin`: the server under test
 * alone on one core, the load generators and this orchestrator on another, so the generator's CPU
 * cannot be taken from the server's and the ratio to the relay measures the servers, not the
 * generator). Pinning uses `taskset -a -p`, which sets the affinity of every thread of a process
 * (PGlite's worker, the generator's threads); threads started later inherit it.
 *
 * One placement per orchestrator process (a module singleton): servers and generators register
 * when they start, and a process registered while pinned is pinned at once, so scenarios that
 * start their own generator (locks) are placed like the rest. Postgres backends are not ours and
 * are never moved: on `--database=postgres` they run wherever the kernel puts them.
 */
import { execFileSync } from 'node:child_process';
import { cpus } from 'node:os';

export type PlacementMode = 'shared' | 'pinned';
export type ProcessRole = 'server' | 'generator' | 'other-load';

export interface PinnedCores {
  /** The server under test (product or relay). */
  server: string;
  /** Load generators and the orchestrator. */
  generator: string;
  /** The `--other-load` burners: beside the server, which is what they are there to disturb. */
  otherLoad: string;
}

/** Core lists as taskset takes them: `--pin` defaults to server on 0, everything else on 1. */
export function parsePinOption(value: string | undefined, coreCount = cpus().length): PinnedCores {
  const [server = '0', generator = coreCount > 1 ? '1' : '0'] = (value && value !== 'both' && value !== 'true' ? value : '').split(':').filter(Boolean);
  return { server, generator, otherLoad: server };
}

class Placement {
  mode: PlacementMode = 'shared';
  private cores: PinnedCores = parsePinOption(undefined);
  private readonly processes = new Map<number, ProcessRole>();
  private everPinned = false;

  configure(cores: PinnedCores): void {
    this.cores = cores;
  }

  register(pid: number, role: ProcessRole): void {
    this.processes.set(pid, role);
    if (this.mode === 'pinned') pinProcess(pid, this.coresFor(role));
  }

  unregister(pid: number): void {
    this.processes.delete(pid);
  }

  /** Moves every registered process (and this one) to the mode's cores. */
  apply(mode: PlacementMode): void {
    this.mode = mode;
    // Shared and never pinned: nothing to undo (and no taskset needed on a machine without it).
    if (mode === 'shared' && !this.everPinned) return;
    this.everPinned = true;
    const all = `0-${cpus().length - 1}`;
    pinProcess(process.pid, mode === 'pinned' ? this.cores.generator : all);
    for (const [pid, role] of this.processes) pinProcess(pid, mode === 'pinned' ? this.coresFor(role) : all);
  }

  describe(): string {
    if (this.mode === 'shared') return 'shared (no pinning)';
    return `pinned (server on core ${this.cores.server}, generators on core ${this.cores.generator})`;
  }

  private coresFor(role: ProcessRole): string {
    return role === 'server' ? this.cores.server : role === 'generator' ? this.cores.generator : this.cores.otherLoad;
  }
}

export const placement = new Placement();

function pinProcess(pid: number, cores: string): void {
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'pipe' });
  } catch (error) {
    // A process that exited meanwhile has nothing left to pin; anything else is a broken mode.
    const text = String((error as { stderr?: Buffer }).stderr ?? error);
    if (!/No such process|failed to get pid/i.test(text)) throw new Error(`taskset -c ${cores} ${pid}: ${text}`, { cause: error });
  }
}
