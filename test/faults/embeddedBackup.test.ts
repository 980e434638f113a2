/**
 * `pnpm db:backup` / `db:restore` for real (docs/operations.md, "Backup and restore"): a backup of
 * a running server's embedded database is taken by that server (over its backup socket) while it
 * keeps serving; a server started on that backup restored into a fresh directory knows the lesson
 * created before it and not the one created after. After SIGTERM the CLI backs the directory up
 * itself, and a restore over an existing database is refused.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { createRoom, joinRoom } from './support/client.ts';
import { killAll, repoRoot, spawnServer } from './support/serverProcess.ts';

const root = mkdtempSync(join(tmpdir(), 'wb-backup-cli-'));
afterAll(async () => {
  await killAll();
  rmSync(root, { recursive: true, force: true });
});

function backupCli(args: string[], pgliteDir: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const env: NodeJS.ProcessEnv = { ...process.env, PGLITE_DIR: pgliteDir };
    delete env.DATABASE_URL;
    const child = spawn(process.execPath, ['--import', 'tsx', 'apps/server/src/backup.ts', ...args], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('exit', (code) => done({ code, output }));
  });
}

describe('embedded database backup and restore through the CLI', () => {
  test('a running server is backed up online and keeps serving; the copy restores with the lesson made before it; stopped, the CLI backs up itself', { timeout: 240_000 }, async () => {
    const liveDir = join(root, 'live');
    const server = await spawnServer({ pgliteDir: liveDir });
    const teacher = await createRoom(server.url);
    const code = teacher.room.code;
    const online = join(root, 'online.tar.gz');

    const backedUpLive = await backupCli(['backup', '--', '--out', online], liveDir);
    expect(backedUpLive.code, backedUpLive.output).toBe(0);
    expect(backedUpLive.output).toMatch(/from the running server/);
    // The server went on serving: a lesson started after the copy (so not in it).
    const later = await createRoom(server.url);

    await server.stop();
    const offline = join(root, 'offline.tar.gz');
    const backedUp = await backupCli(['backup', '--', '--out', offline], liveDir);
    expect(backedUp.code, backedUp.output).toBe(0);
    expect(backedUp.output).not.toMatch(/from the running server/);

    const restoredDir = join(root, 'restored');
    const restored = await backupCli(['restore', '--', '--from', online], restoredDir);
    expect(restored.code, restored.output).toBe(0);
    // Restoring over a database is refused: move it aside first.
    expect((await backupCli(['restore', '--', '--from', offline], restoredDir)).code).toBe(1);

    const again = await spawnServer({ pgliteDir: restoredDir });
    try {
      const student = await joinRoom(again.url, code, 'Ada');
      expect(student.room.id).toBe(teacher.room.id);
      expect((await fetch(`${again.url}/api/rooms/${later.room.code}`)).status).toBe(404);
    } finally {
      await again.stop();
    }
    expect(existsSync(`${online}.partial`)).toBe(false);
  });
});
