/**
 * A private redis-server for one fault test (never the machine's shared Redis): started on a free
 * loopback port with no persistence, killed with SIGKILL to play an outage, started again on the
 * same port. `killAll` (serverProcess.ts) also stops it if a test fails midway.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { freePort, track } from './serverProcess.ts';

export const redisServerPath = spawnSync('sh', ['-c', 'command -v redis-server']).stdout.toString().trim();

/** Why a Redis fault cannot run here, or null. Under CI a missing redis-server fails instead. */
export function redisSkipReason(): string | null {
  if (redisServerPath) return null;
  if (process.env.CI) throw new Error('CI is set but redis-server is not installed: the Redis outage fault must run on CI.');
  return 'redis-server is not installed';
}

export class PrivateRedis {
  private child: ChildProcess | null = null;
  port = 0;

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    if (this.child) return;
    if (!this.port) this.port = await freePort();
    const child = spawn(redisServerPath, ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    track(child);
    let output = '';
    await new Promise<void>((ready, fail) => {
      const timer = setTimeout(() => fail(new Error(`redis-server did not start: ${output}`)), 15_000);
      child.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          ready();
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        fail(new Error(`redis-server exited with ${code}: ${output}`));
      });
    });
    child.stdout?.removeAllListeners('data');
    child.stdout?.resume();
    child.stderr?.resume();
    this.child = child;
  }

  /** SIGKILL: the adapter's connections drop at once and nothing answers on the port. */
  async kill(): Promise<void> {
    const child = this.child;
    this.child = null;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise((done) => child.once('exit', done));
    child.kill('SIGKILL');
    await gone;
  }
}
