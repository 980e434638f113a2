/**
 * `pnpm smoke:dist` (CI: the checks lane): proves the image's way of running the server works
 * without Docker. Compiles the server and its tools (scripts/build-server.mjs), lays out production
 * dependencies with `pnpm deploy --prod` (as the Dockerfile does) in a temporary directory, then:
 *   1. starts `node dist/server/main.mjs` there on the embedded database and waits for /healthz
 *      and /readyz;
 *   2. uses it: starts a lesson over HTTP and reads it back;
 *   3. backs it up while it runs with the compiled `dist/server/backup.mjs backup` (the online
 *      backup: the running server copies its own database) and restores the copy into a new
 *      directory with `backup.mjs restore`;
 *   4. sends SIGTERM and expects exit code 0 after the three drain phases;
 *   5. starts a second server on the restored directory and reads the lesson back there.
 * SMOKE_PORT (default 30,000 + a random offset) picks the port. Exit code 0 on success.
 */
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..');
const work = mkdtempSync(join(tmpdir(), 'wb-smoke-dist-'));
const port = Number(process.env.SMOKE_PORT ?? 30_000 + Math.floor(Math.random() * 20_000));
const deployed = join(work, 'app');
const base = `http://127.0.0.1:${port}`;

/** The environment of every process started from the deployed layout. */
const envFor = (pgliteDir) => ({
  PATH: process.env.PATH,
  NODE_ENV: 'production',
  HOST: '127.0.0.1',
  PORT: String(port),
  PGLITE_DIR: pgliteDir,
  WEB_DIST: join(root, 'apps/web/dist'),
  SHUTDOWN_DRAIN_MS: '300',
  SHUTDOWN_RECONNECT_SPREAD_MS: '300',
});

/** Starts the compiled server on `pgliteDir` and resolves once both probes answer 200. */
async function startServer(pgliteDir) {
  const child = spawn(process.execPath, ['dist/server/main.mjs'], { cwd: deployed, env: envFor(pgliteDir), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  const exited = new Promise((done) => child.once('exit', (code) => done(code)));
  const ok = async (path) => (await fetch(`${base}${path}`).catch(() => null))?.ok === true;
  const deadline = Date.now() + 180_000;
  while (!((await ok('/healthz')) && (await ok('/readyz')))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the compiled server did not become healthy:\n${output.slice(-3_000)}`);
    }
    await new Promise((done) => setTimeout(done, 500));
  }
  return { child, exited, output: () => output };
}

async function json(path, init) {
  const response = await fetch(`${base}${path}`, init);
  const body = await response.json();
  if (!response.ok) throw new Error(`${init?.method ?? 'GET'} ${path}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

try {
  execFileSync(process.execPath, [join(root, 'scripts/build-server.mjs'), join(work, 'dist')], { stdio: 'inherit' });
  // --prefer-offline, not --offline: pnpm verifies the deployed lockfile against its supply-chain
  // policy, which needs each package's metadata; once that verification's cache lapses, --offline
  // fails on any package whose metadata the install did not keep (seen: has-flag). Output is kept
  // and shown only on failure.
  execFileSync('pnpm', ['--filter', '@wb/server', 'deploy', '--prod', '--prefer-offline', deployed], { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] });
  cpSync(join(work, 'dist'), join(deployed, 'dist'), { recursive: true });

  const liveDir = join(work, 'pglite');
  const first = await startServer(liveDir);
  console.log(`compiled server healthy and ready on port ${port}`);

  const title = `Smoke ${randomBytes(4).toString('hex')}`;
  const grant = await json('/api/rooms', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ teacherName: 'Smoke', title, memberKey: randomBytes(18).toString('base64url') }),
  });
  const code = grant.room.code;
  if ((await json(`/api/rooms/${code}`)).title !== title) throw new Error(`lesson ${code} does not read back with its title`);
  console.log(`lesson ${code} started and read back`);

  const archive = join(work, 'live-backup.tar.gz');
  execFileSync(process.execPath, ['dist/server/backup.mjs', 'backup', '--out', archive], { cwd: deployed, env: envFor(liveDir), stdio: 'inherit' });
  const restoredDir = join(work, 'restored');
  execFileSync(process.execPath, ['dist/server/backup.mjs', 'restore', '--from', archive], { cwd: deployed, env: envFor(restoredDir), stdio: 'inherit' });

  first.child.kill('SIGTERM');
  const code0 = await first.exited;
  if (code0 !== 0 || !first.output().includes('shutdown 3/3')) throw new Error(`shutdown exit code ${code0}:\n${first.output().slice(-3_000)}`);
  console.log('SIGTERM drained and exited 0');

  const second = await startServer(restoredDir);
  try {
    if ((await json(`/api/rooms/${code}`)).title !== title) throw new Error(`lesson ${code} is not in the restored backup`);
    console.log(`lesson ${code} read back from the restored online backup`);
  } finally {
    second.child.kill('SIGTERM');
    await second.exited;
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
