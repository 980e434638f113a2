/**
 * The teacher's attention kit in the store (issue 21), as contract tests on PGlite and real
 * Postgres: the lesson's cursor visibility and the students' laser are lesson settings, changed
 * only by the teacher inside the same conditional write as the edit policy.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`attention settings on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    test("a new lesson shows students only the teacher's cursor and keeps the laser the teacher's", async () => {
      const { room } = await lesson();
      expect((await store.findRoomById(room.roomId))?.settings).toEqual({ editPolicy: 'own', cursorVisibility: 'teacher', laserAllowed: false });
      expect(await store.readDrawRights(room.roomId)).toMatchObject({ cursorVisibility: 'teacher', laserAllowed: false });
    });

    test('a lesson started with settings keeps them', async () => {
      const { room } = await lesson({ cursorVisibility: 'everyone', laserAllowed: true });
      expect((await store.findRoomById(room.roomId))?.settings).toMatchObject({ cursorVisibility: 'everyone', laserAllowed: true });
    });

    test('I11: only the teacher changes cursor visibility and the laser; each change is one room.updated, a repeat changes nothing', async () => {
      const { room, teacher, student } = await lesson();
      expect((await store.setLessonSettings(student, { cursorVisibility: 'everyone' })).decision).toBe('forbidden');
      const changed = await store.setLessonSettings(teacher, { cursorVisibility: 'none', laserAllowed: true });
      if (changed.decision !== 'applied') throw new Error(changed.decision);
      expect(changed.room.settings).toEqual({ editPolicy: 'own', cursorVisibility: 'none', laserAllowed: true });
      expect(changed.events.map((e) => e.kind)).toEqual(['room.updated']);
      expect((await store.setLessonSettings(teacher, { cursorVisibility: 'none' })).decision).toBe('already_applied');
      expect(await store.readDrawRights(room.roomId)).toMatchObject({ cursorVisibility: 'none', laserAllowed: true });
    });
  });
}
