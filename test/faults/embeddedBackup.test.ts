/**
 * `pnpm db:backup` / `db:restore` for real (docs/operations.md, "Backup and restore"): a backup of
 * a running server's embedded database is refused (exit 3, the directory is the server's), after
 * SIGTERM it succeeds, and a server started on the backup restored into a fresh directory knows
 * the lesson created before it.
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
  test('a running server refuses the backup (exit 3); stopped, the backup restores into a directory a server starts on with the lesson', { timeout: 240_000 }, async () => {
    const liveDir = join(root, 'live');
    const server = await spawnServer({ pgliteDir: liveDir });
    const teacher = await createRoom(server.url);
    const code = teacher.room.code;
    const archive = join(root, 'backup.tar.gz');

    const refused = await backupCli(['backup', '--', '--out', archive], liveDir);
    expect(refused.output).toMatch(/Stop the server first/);
    expect(refused.code).toBe(3);
    expect(existsSync(archive)).toBe(false);

    await server.stop();
    const backedUp = await backupCli(['backup', '--', '--out', archive], liveDir);
    expect(backedUp.code, backedUp.output).toBe(0);

    const restoredDir = join(root, 'restored');
    const restored = await backupCli(['restore', '--', '--from', archive], restoredDir);
    expect(restored.code, restored.output).toBe(0);
    // Restoring over a database is refused: move it aside first.
    expect((await backupCli(['restore', '--', '--from', archive], restoredDir)).code).toBe(1);

    const again = await spawnServer({ pgliteDir: restoredDir });
    try {
      const student = await joinRoom(again.url, code, 'Ada');
      expect(student.room.id).toBe(teacher.room.id);
    } finally {
      await again.stop();
    }
  });
});
