/** The orchestrator's side of a load-generator process: typed commands over IPC, and marks. */
import { fork, type ChildProcess } from 'node:child_process';
import type { CommandName, GeneratorCommands, GeneratorMessage } from './generatorMessages.ts';
import { placement } from './placement.ts';
import { readProc, type ProcSample } from './procStats.ts';
import { repoRoot, type ServerUnderTest } from './serverUnderTest.ts';

export class GeneratorHandle {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  private readonly markListeners = new Set<(name: string) => void>();

  private constructor(private readonly child: ChildProcess) {
    child.on('message', (message: GeneratorMessage) => {
      if (message.kind === 'mark') {
        for (const listener of this.markListeners) listener(message.name);
        return;
      }
      if (message.kind !== 'reply') return;
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(`generator: ${message.error}`));
    });
    child.on('exit', (code) => {
      for (const waiter of this.pending.values()) waiter.reject(new Error(`generator exited with ${code}`));
      this.pending.clear();
    });
  }

  /**
   * `target`: a server under test, or anything with its URL and kind (the district day's balancer).
   * `env`: extra settings for the generator (BENCH_ROOM_ADDRESS_OFFSET for a second one).
   */
  static async start(target: Pick<ServerUnderTest, 'url' | 'kind'>, env: Record<string, string> = {}): Promise<GeneratorHandle> {
    const child = fork(`${repoRoot}/bench/loadGenerator.ts`, [], {
      cwd: repoRoot,
      execArgv: ['--import', 'tsx'],
      env: { ...process.env, ...env, BENCH_TARGET_URL: target.url, BENCH_TARGET_KIND: target.kind },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Placed at once (when pinned, its threads start on the generators' core).
    if (child.pid !== undefined) placement.register(child.pid, 'generator');
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (child.pid !== undefined) placement.unregister(child.pid);
        child.kill('SIGKILL');
        reject(new Error('generator did not start in 30 s'));
      }, 30_000);
      child.on('message', (message: GeneratorMessage) => {
        if (message.kind === 'ready') {
          clearTimeout(timer);
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`generator exited with ${code}`)));
    });
    return new GeneratorHandle(child);
  }

  call<N extends CommandName>(name: N, params: GeneratorCommands[N]['params'], timeoutMs = 300_000): Promise<GeneratorCommands[N]['result']> {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      // Every command is bounded in time: a wedged generator fails the run instead of hanging it.
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`generator command ${name} timed out after ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as GeneratorCommands[N]['result']);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.child.send({ kind: 'command', id, name, params });
    });
  }

  onMark(listener: (name: string) => void): () => void {
    this.markListeners.add(listener);
    return () => this.markListeners.delete(listener);
  }

  sample(): ProcSample {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('generator has no pid');
    return readProc(pid);
  }

  async stop(): Promise<void> {
    if (this.child.pid !== undefined) placement.unregister(this.child.pid);
    if (this.child.exitCode !== null) return;
    const exited = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.disconnect();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
