/**
 * `pnpm smoke:dist`: proves the image's way of running the server works without Docker. Compiles
 * the server (scripts/build-server.mjs), lays out production dependencies with
 * `pnpm deploy --prod` (as the Dockerfile does) in a temporary directory, starts
 * `node dist/server/main.mjs` there on the embedded database, waits for /healthz and /readyz,
 * then sends SIGTERM and expects exit code 0 after the three drain phases. SMOKE_PORT (default
 * 3000 + a random offset) picks the port. Exit code 0 on success.
 */
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'wb-smoke-dist-'));
const port = Number(process.env.SMOKE_PORT ?? 30_000 + Math.floor(Math.random() * 20_000));
const deployed = join(work, 'app');

try {
  execFileSync(process.execPath, [join(root, 'scripts/build-server.mjs'), join(work, 'dist')], { stdio: 'inherit' });
  execFileSync('pnpm', ['--filter', '@wb/server', 'deploy', '--prod', '--offline', deployed], { cwd: root, stdio: 'ignore' });
  cpSync(join(work, 'dist'), join(deployed, 'dist'), { recursive: true });
  const child = spawn(process.execPath, ['dist/server/main.mjs'], {
    cwd: deployed,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: String(port),
      PGLITE_DIR: join(work, 'pglite'),
      WEB_DIST: join(root, 'apps/web/dist'),
      SHUTDOWN_DRAIN_MS: '300',
      SHUTDOWN_RECONNECT_SPREAD_MS: '300',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise((done) => child.once('exit', (code) => done(code)));
  const ok = async (path) => (await fetch(`http://127.0.0.1:${port}${path}`).catch(() => null))?.ok === true;
  const deadline = Date.now() + 180_000;
  while (!((await ok('/healthz')) && (await ok('/readyz')))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the compiled server did not become healthy:\n${output.slice(-3_000)}`);
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  console.log(`compiled server healthy and ready on port ${port}`);
  child.kill('SIGTERM');
  const code = await exited;
  if (code !== 0 || !output.includes('shutdown 3/3')) throw new Error(`shutdown exit code ${code}:\n${output.slice(-3_000)}`);
  console.log('SIGTERM drained and exited 0');
} finally {
  rmSync(work, { recursive: true, force: true });
}
