import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { openDatabase } from '../src/database.ts';
import { backupEmbeddedDatabase, restoreEmbeddedDatabase } from '../src/embeddedBackup.ts';
import { PgliteDirLockedError } from '../src/pgliteLock.ts';
import { createStore } from '../src/store.ts';
import { CLOCK_START, leaseAt, seatStudent } from './fixtures.ts';

const root = mkdtempSync(join(tmpdir(), 'wb-backup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('embedded database backup and restore (pnpm db:backup / db:restore)', () => {
  test('a backup restored into a fresh directory reads back the room, its member and attendance', { timeout: 120_000 }, async () => {
    const dataDir = join(root, 'live');
    const database = await openDatabase({ kind: 'pglite', dataDir });
    const store = createStore(database, new FrozenClock(CLOCK_START));
    const seat = await seatStudent(store);
    await leaseAt(store, seat, 1);
    const before = await store.loadAttendanceReport(seat.roomId);
    expect(before?.students).toHaveLength(1);

    // While the server (here: this process's open database) holds the directory, no backup.
    await expect(backupEmbeddedDatabase(dataDir, join(root, 'refused.tar.gz'))).rejects.toBeInstanceOf(PgliteDirLockedError);
    await database.close();

    const archive = join(root, 'backup.tar.gz');
    const { bytes } = await backupEmbeddedDatabase(dataDir, archive);
    expect(bytes).toBeGreaterThan(0);
    rmSync(dataDir, { recursive: true, force: true }); // the original is gone: only the backup remains

    const restoredDir = join(root, 'restored');
    await restoreEmbeddedDatabase(archive, restoredDir);
    const restored = await openDatabase({ kind: 'pglite', dataDir: restoredDir });
    try {
      const after = await createStore(restored, new FrozenClock(CLOCK_START)).loadAttendanceReport(seat.roomId);
      expect(after?.room.id).toBe(seat.roomId);
      expect(after?.students.map((s) => s.userId)).toEqual([seat.userId]);
      expect(after?.students).toEqual(before?.students);
    } finally {
      await restored.close();
    }
  });

  test('a restore refuses a directory that already holds files, and leaves them alone', async () => {
    const occupied = join(root, 'occupied');
    mkdirSync(occupied, { recursive: true });
    writeFileSync(join(occupied, 'PG_VERSION'), '17\n');
    await expect(restoreEmbeddedDatabase(join(root, 'any.tar.gz'), occupied)).rejects.toThrow(/not empty/);
    expect(await import('node:fs').then((fs) => fs.readFileSync(join(occupied, 'PG_VERSION'), 'utf8'))).toBe('17\n');
  });
});
