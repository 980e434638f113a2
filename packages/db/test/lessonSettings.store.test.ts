/**
 * The lesson settings as declared once (LESSON_SETTINGS, lessonSettings.ts), in the store on PGlite
 * and real Postgres: every declared setting, with every value it may take, is written and read back
 * through the columns derived from the declaration (a lesson's start, the teacher's change, every
 * reader of a room), and who may set it is the declaration's.
 */
import { randomUUID } from 'node:crypto';
import { DEFAULT_LESSON_SETTINGS, SETTING_NAMES, everySettingValue, maySetSetting, type LessonSettings } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`declared lesson settings on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    async function lesson(settings?: Partial<LessonSettings>) {
      const room = await newRoom(store, settings);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seat = await seatStudent(store, room);
      const student: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      return { room, teacher, student };
    }

    /** The settings as every reader of the room sees them: the room, the snapshot, the ink rights. */
    async function readBack(roomId: string): Promise<LessonSettings[]> {
      const room = await store.findRoomById(roomId);
      const snapshot = await store.loadRoomSnapshot(roomId);
      const rights = await store.readDrawRights(roomId);
      const { status: _status, mutedUserIds: _muted, ...inkSettings } = rights!;
      return [room!.settings, snapshot!.room.settings, inkSettings];
    }

    test('LS1: every declared setting, with every value, starts a lesson and reads back the same everywhere', async () => {
      for (const name of SETTING_NAMES) {
        for (const value of everySettingValue(name)) {
          const { room } = await lesson({ [name]: value });
          const expected = { ...DEFAULT_LESSON_SETTINGS, [name]: value };
          for (const read of await readBack(room.roomId)) expect(read, `${name} = ${String(value)}`).toEqual(expected);
        }
      }
    });

    test('LS2: the teacher changes every declared setting to every value, each kept with the others untouched', async () => {
      const { room, teacher } = await lesson();
      let expected: LessonSettings = { ...DEFAULT_LESSON_SETTINGS };
      for (const name of SETTING_NAMES) {
        // Last to first: each setting ends on a value other than its default, so a lost write shows.
        for (const value of [...everySettingValue(name)].reverse()) {
          const result = await store.setLessonSettings(teacher, { [name]: value });
          expect(result.decision, `${name} = ${String(value)}`).toBe(value === expected[name] ? 'already_applied' : 'applied');
          expected = { ...expected, [name]: value };
          for (const read of await readBack(room.roomId)) expect(read, `${name} = ${String(value)}`).toEqual(expected);
        }
      }
      expect(expected).not.toEqual(DEFAULT_LESSON_SETTINGS);
    });

    test("LS3: who may set a setting is its declaration's: a student's change of any teacher-only setting is refused and changes nothing", async () => {
      const { room, student } = await lesson();
      const teacherOnly = SETTING_NAMES.filter((name) => !maySetSetting('student', name));
      expect(teacherOnly.length).toBeGreaterThan(0);
      for (const name of teacherOnly) {
        const other = everySettingValue(name).find((v) => v !== DEFAULT_LESSON_SETTINGS[name])!;
        expect((await store.setLessonSettings(student, { [name]: other })).decision, name).toBe('forbidden');
      }
      for (const read of await readBack(room.roomId)) expect(read).toEqual(DEFAULT_LESSON_SETTINGS);
    });
  });
}
