/**
 * Online backup of the embedded database (backupSocket.ts, pgliteWorker.mjs): `pnpm db:backup`
 * asks the running server, whose own engine copies its directory between two statements outside
 * any transaction, while the lesson goes on. Proven by restoring the copy into a fresh directory
 * and reading the lesson back, elements included.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createStore, databaseClock, openDatabase, restoreEmbeddedDatabase, type Store } from '@wb/db';
import { sql } from 'drizzle-orm';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startApp, type App } from '../src/app.ts';
import { backupSocketPath, requestOnlineBackup } from '../src/backupSocket.ts';
import { loadConfig } from '../src/config.ts';

const root = mkdtempSync(join(tmpdir(), 'wb-online-backup-'));
const dataDir = join(root, 'live');
const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;
const token = () => randomBytes(16).toString('hex');

let app: App;
beforeAll(async () => {
  // The server opens its own embedded database in a directory, as in production (no test database).
  app = await startApp(loadConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', WEB_DIST: '/nonexistent', PGLITE_DIR: dataDir }), { startSweeper: false });
}, 300_000);
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A lesson with its teacher's session, on the running server's store. */
async function lesson(store: Store) {
  const created = await store.createRoom({ code: token().slice(0, 10).toUpperCase(), title: 'Backed up', teacherName: 'Teacher', memberKeyHash: token() });
  if (created.decision !== 'created') throw new Error(`room not created: ${created.decision}`);
  const teacher = { roomId: created.room.id, userId: created.member.userId, sessionId: randomUUID() };
  await store.openSession({ id: teacher.sessionId, roomId: teacher.roomId, userId: teacher.userId, tokenHash: token(), ttlMs: 3_600_000 });
  const draw = async (x: number) => {
    const made = await store.createElement(teacher, { id: randomUUID(), shape: { ...square, x } });
    if (made.decision !== 'applied') throw new Error(`element not created: ${made.decision}`);
    return made.element.id;
  };
  return { roomId: teacher.roomId, draw };
}

describe('online backup of the embedded database (pnpm db:backup beside a running server)', () => {
  test('the socket is the server account\'s only (mode 0600)', () => {
    expect(statSync(backupSocketPath(dataDir)).mode & 0o777).toBe(0o600);
  });

  test('a backup asked for while a transaction is open is copied after its commit, the server keeps serving, and the copy restores with the lesson and its elements', { timeout: 180_000 }, async () => {
    const { roomId, draw } = await lesson(app.store);
    const drawn = [await draw(0), await draw(20), await draw(40)];

    // A write in flight when the backup is asked for: its transaction is open on the engine's one
    // connection. A copy taken now would hold its change uncommitted (gone after the restore's
    // recovery); the engine must wait for the commit and copy after it. The request is posted to
    // the engine before the transaction's next statements, which it must serve without copying.
    let copied = false;
    let copy!: Promise<Uint8Array>;
    await app.database.db.transaction(async (tx) => {
      await tx.execute(sql`UPDATE rooms SET title = 'Renamed in flight' WHERE id = ${roomId}::uuid`);
      copy = app.database.embeddedBackup!();
      void copy.then(() => (copied = true));
      for (let i = 0; i < 5; i++) await tx.execute(sql`SELECT 1`);
      expect(copied).toBe(false);
    });
    const inFlight = join(root, 'in-flight.tar.gz');
    writeFileSync(inFlight, await copy);

    // The server went on: a write after that copy succeeds.
    const after = await draw(60);
    expect((await app.store.loadRoomSnapshot(roomId))?.elements.map((e) => e.id)).toContain(after);
    // What `pnpm db:backup` does: ask over the socket. (Restoring it is the fault suite's and
    // smoke:dist's: each restored copy costs an engine start, and one proves the copy here.)
    const socketCopy = join(root, 'socket.tar.gz');
    const sent = await requestOnlineBackup(dataDir, socketCopy);
    const gzip = readFileSync(socketCopy);
    expect(gzip.length).toBe(sent.bytes);
    expect([gzip[0], gzip[1]]).toEqual([0x1f, 0x8b]);

    const restoredDir = join(root, 'restored');
    await restoreEmbeddedDatabase(inFlight, restoredDir);
    const restored = await openDatabase({ kind: 'pglite', dataDir: restoredDir });
    try {
      const snapshot = await createStore(restored, databaseClock).loadRoomSnapshot(roomId);
      expect(snapshot?.room.id).toBe(roomId);
      expect(snapshot?.room.title).toBe('Renamed in flight');
      expect(snapshot?.elements.map((e) => e.id).sort()).toEqual([...drawn].sort());
      expect(snapshot?.elements.every((e) => e.shape.kind === 'rect')).toBe(true);
    } finally {
      await restored.close();
    }
  });
});
