/**
 * The lesson's paper in the store (issue 23), as contract tests on PGlite and real Postgres: a
 * rooms column (migration 0013) read into `RoomInfo.settings`, changed only by the teacher inside
 * the same conditional write as the other lesson settings, and kept for every later reader.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`lesson paper on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    let store: Store;
    const clock = new FrozenClock(CLOCK_START);

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, clock);
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    async function lesson(settings?: Parameters<typeof newRoom>[1]) {
      const room = await newRoom(store, settings);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seat = await seatStudent(store, room);
      const student: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      return { room, teacher, student };
    }

    test('a new lesson is on dotted paper; one started on graph paper keeps it', async () => {
      const plain = await lesson();
      expect((await store.findRoomById(plain.room.roomId))?.settings.paper).toBe('dots');
      const graph = await lesson({ paper: 'graph' });
      expect((await store.findRoomById(graph.room.roomId))?.settings.paper).toBe('graph');
    });

    test('I11: only the teacher changes the paper; the change is one room.updated, kept durably, a repeat changes nothing', async () => {
      const { room, teacher, student } = await lesson();
      expect((await store.setLessonSettings(student, { paper: 'staff' })).decision).toBe('forbidden');
      expect((await store.findRoomById(room.roomId))?.settings.paper).toBe('dots');

      const changed = await store.setLessonSettings(teacher, { paper: 'lined' });
      if (changed.decision !== 'applied') throw new Error(changed.decision);
      expect(changed.room.settings).toEqual({ editPolicy: 'own', cursorVisibility: 'teacher', laserAllowed: false, paper: 'lined' });
      expect(changed.events.map((e) => [e.kind, e.payload])).toEqual([['room.updated', changed.room]]);
      expect((await store.setLessonSettings(teacher, { paper: 'lined' })).decision).toBe('already_applied');
      // Another setting's change keeps the paper.
      expect((await store.setLessonSettings(teacher, { laserAllowed: true })).decision).toBe('applied');
      expect((await store.findRoomById(room.roomId))?.settings.paper).toBe('lined');
    });

    test('the database refuses a paper the protocol does not name', async () => {
      const { room } = await lesson();
      await expect(testDb.database.db.execute(sql`UPDATE rooms SET paper = 'tartan' WHERE id = ${room.roomId}::uuid`)).rejects.toThrow();
    });
  });
}
