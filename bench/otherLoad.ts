/**
 * Other load beside the server (`--other-load=N`): N child processes that each keep one core busy
 * (an empty loop), the "about one core of other load" the issue measured a class under. They run
 * for as long as the scenario that asked for them and are stopped by pid. When pinned, they share
 * the server's core (placement.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { placement } from './placement.ts';
import { coresUsed, readProc, type ProcSample } from './procStats.ts';

export class OtherLoad {
  private marks: ProcSample[];

  private constructor(private readonly children: ChildProcess[]) {
    this.marks = this.read();
  }

  static start(cores: number): OtherLoad {
    const children = Array.from({ length: cores }, () => {
      const child = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
      if (child.pid !== undefined) placement.register(child.pid, 'other-load');
      return child;
    });
    return new OtherLoad(children);
  }

  get count(): number {
    return this.children.length;
  }

  /** Cores the burners used since the previous call (about N when nothing starves them). */
  coresSinceLastRead(): number {
    const now = this.read();
    const used = now.reduce((total, sample, i) => {
      const mark = this.marks[i];
      return total + (mark ? coresUsed(mark, sample) : 0);
    }, 0);
    this.marks = now;
    return used;
  }

  stop(): void {
    for (const child of this.children) {
      if (child.pid !== undefined) placement.unregister(child.pid);
      child.kill('SIGKILL');
    }
  }

  private read(): ProcSample[] {
    return this.children.map((child) => (child.pid !== undefined && child.exitCode === null ? readProc(child.pid) : { at: performance.now(), cpuSeconds: 0, rssBytes: 0, writeCalls: 0, readCalls: 0 }));
  }
}
