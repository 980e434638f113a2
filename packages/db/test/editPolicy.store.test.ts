/**
 * Teacher authority over the board (docs/store.md, "Edit policy", P1-P9) as store contract tests on
 * PGlite and real Postgres: the lesson's edit policy and a muted pen are decided inside each edit's
 * conditional write; reducing rights ends drags at once; history keeps every version and the
 * teacher restores deleted elements, earlier versions and whole clears.
 */
import { randomUUID } from 'node:crypto';
import type { EditPolicy, ElementShape, RoomEvent } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import { FrozenClock } from '../src/clock.ts';
import { RightsChanged, authorizeEdit, editTransaction } from '../src/editRights.ts';
import { appendRoomEvent } from '../src/roomLog.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, requestId, roomRevision, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

const FIRST_TERM_MS = 2_000;
const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`edit policy on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    /** A lesson with its teacher's session and two students', each with an element of their own. */
    async function lesson(policy?: EditPolicy) {
      const room = await newRoom(store);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seatA = await seatStudent(store, room);
      const seatB = await seatStudent(store, room);
      const ana: EditActor = { roomId: room.roomId, sessionId: seatA.sessionId, userId: seatA.userId };
      const ben: EditActor = { roomId: room.roomId, sessionId: seatB.sessionId, userId: seatB.userId };
      const draw = async (who: EditActor) => decided(await store.createElement(who, { id: randomUUID(), shape: square }), 'applied').element;
      const teachers = await draw(teacher);
      const anas = await draw(ana);
      const bens = await draw(ben);
      if (policy) decided(await store.setLessonSettings(teacher, { editPolicy: policy }), policy === 'own' ? 'already_applied' : 'applied');
      return { roomId: room.roomId, teacher, ana, ben, teachers, anas, bens };
    }

    /** Every way a student can change an existing element, as decisions. */
    async function tryEverything(who: EditActor, elementId: string, baseVersion: number) {
      return {
        update: (await store.updateElement(who, { id: elementId, baseVersion, shape: { ...square, fill: '#ff0000' }, requestId: requestId('u') })).decision,
        acquire: (await store.acquireLock(who, { elementId, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS })).decision,
        delete: (await store.deleteElement(who, { id: elementId, erased: true })).decision,
      };
    }

    test('I11: a student\'s revision bump refuses once the policy or status it was authorised under changed; a teacher\'s does not', async () => {
      const { roomId, teacher, ana } = await lesson('everyone');
      const bumpAfter = (who: EditActor, change: ReturnType<typeof sql>) =>
        testDb.database.db.transaction(async (tx) => {
          const auth = await authorizeEdit(tx, clock, who);
          // A change landing between the edit's read of its rights and its bump: the row locks keep
          // it out, the bump's own condition must refuse it anyway.
          await tx.execute(change);
          return appendRoomEvent(tx, clock, roomId, 'member.hand', { userId: who.userId, occurrence: randomUUID() }, {
            userId: who.userId,
            raisedAt: null,
            by: who.userId,
          }, auth ?? undefined);
        });
      const before = await roomRevision(testDb.database, roomId);
      await expect(bumpAfter(ana, sql`UPDATE rooms SET edit_policy = 'look' WHERE id = ${roomId}::uuid`)).rejects.toBeInstanceOf(RightsChanged);
      await expect(bumpAfter(ana, sql`UPDATE rooms SET status = 'ended' WHERE id = ${roomId}::uuid`)).rejects.toBeInstanceOf(RightsChanged);
      expect(await roomRevision(testDb.database, roomId)).toBe(before);
      const teachers = await bumpAfter(teacher, sql`UPDATE rooms SET edit_policy = 'look' WHERE id = ${roomId}::uuid`);
      expect(teachers.revision).toBe(before + 1);
    });

    test('I11: an edit whose rights changed before its bump runs again and is decided by the new rights', async () => {
      const { roomId, ana } = await lesson('everyone');
      const lookOnly = sql`UPDATE rooms SET edit_policy = 'look' WHERE id = ${roomId}::uuid`;
      let attempts = 0;
      const decision = await editTransaction(testDb.database.db, async (tx) => {
        attempts++;
        // The second attempt starts after the change has committed (here: in its own transaction).
        if (attempts === 2) await tx.execute(lookOnly);
        const auth = await authorizeEdit(tx, clock, ana);
        if (!auth) return 'not_a_member';
        if (auth.editPolicy === 'look') return 'look_only';
        // The first attempt sees the change land between its read and its bump.
        await tx.execute(lookOnly);
        await appendRoomEvent(tx, clock, roomId, 'member.hand', { userId: ana.userId, occurrence: randomUUID() }, {
          userId: ana.userId,
          raisedAt: null,
          by: ana.userId,
        }, auth);
        return 'applied';
      });
      expect({ decision, attempts }).toEqual({ decision: 'look_only', attempts: 2 });
    });

    test('P1: a new lesson lets students edit only their own work, and every element names its author', async () => {
      const { roomId, teacher, ana, anas, teachers } = await lesson();
      const room = await store.findRoomById(roomId);
      expect(room?.settings).toEqual({ editPolicy: 'own', cursorVisibility: 'teacher', laserAllowed: false, paper: 'dots' });
      expect(teachers).toMatchObject({ createdBy: teacher.userId, updatedBy: teacher.userId });
      const restyled = decided(
        await store.updateElement(teacher, { id: anas.id, baseVersion: 1, shape: { ...square, fill: '#00ff00' }, requestId: requestId('t') }),
        'applied',
      );
      // The teacher changed Ana's element: it stays hers, the change is the teacher's.
      expect(restyled.element).toMatchObject({ createdBy: ana.userId, updatedBy: teacher.userId });
    });

    test('P2: under "own" a student cannot update, drag or delete the teacher\'s or another student\'s element, and nothing is stored', async () => {
      const { roomId, ana, ben, teachers, bens } = await lesson('own');
      const before = await roomRevision(testDb.database, roomId);
      expect(await tryEverything(ana, teachers.id, 1)).toEqual({ update: 'not_own', acquire: 'not_own', delete: 'not_own' });
      expect(await tryEverything(ana, bens.id, 1)).toEqual({ update: 'not_own', acquire: 'not_own', delete: 'not_own' });
      expect(await roomRevision(testDb.database, roomId)).toBe(before);
      const snapshot = await store.loadRoomSnapshot(roomId);
      expect(snapshot?.elements.map((e) => e.version)).toEqual([1, 1, 1]);
      // Their own work stays theirs to change.
      const own = (await store.loadRoomSnapshot(roomId))!.elements.find((e) => e.createdBy === ben.userId)!;
      expect(await tryEverything(ben, own.id, 1)).toEqual({ update: 'applied', acquire: 'granted', delete: 'applied' });
    });

    test('P3: under "look" a student can neither draw nor change anything; the teacher still can', async () => {
      const { roomId, teacher, ana, anas } = await lesson('look');
      expect((await store.createElement(ana, { id: randomUUID(), shape: square })).decision).toBe('look_only');
      expect(await tryEverything(ana, anas.id, 1)).toEqual({ update: 'look_only', acquire: 'look_only', delete: 'look_only' });
      expect((await store.deleteElement(teacher, { id: anas.id })).decision).toBe('applied');
      expect((await store.loadRoomSnapshot(roomId))!.elements).toHaveLength(2);
    });

    test('P4: under "everyone" a student changes anyone\'s element (pins still hold)', async () => {
      const { teacher, ana, teachers, bens } = await lesson('everyone');
      expect(await tryEverything(ana, bens.id, 1)).toEqual({ update: 'applied', acquire: 'granted', delete: 'applied' });
      decided(await store.setElementPinned(teacher, { id: teachers.id, pinned: true }), 'applied');
      expect((await store.deleteElement(ana, { id: teachers.id })).decision).toBe('pinned');
    });

    test('P5: a muted pen only looks under every policy, and drawing comes back when the teacher gives it back', async () => {
      const { teacher, ana, anas } = await lesson('everyone');
      const muted = decided(await store.setPenMuted(teacher, { userId: ana.userId, muted: true }), 'applied');
      expect(muted.member.penMuted).toBe(true);
      expect(muted.events.map((e) => e.kind)).toEqual(['member.pen']);
      expect((await store.createElement(ana, { id: randomUUID(), shape: square })).decision).toBe('pen_muted');
      expect(await tryEverything(ana, anas.id, 1)).toEqual({ update: 'pen_muted', acquire: 'pen_muted', delete: 'pen_muted' });
      expect((await store.setPenMuted(teacher, { userId: ana.userId, muted: true })).decision).toBe('already_applied');
      decided(await store.setPenMuted(teacher, { userId: ana.userId, muted: false }), 'applied');
      expect((await store.createElement(ana, { id: randomUUID(), shape: square })).decision).toBe('applied');
    });

    test('P6: only the teacher changes the policy, mutes a pen, restores or clears', async () => {
      const { ana, ben, teachers } = await lesson('everyone');
      expect((await store.setLessonSettings(ana, { editPolicy: 'everyone' })).decision).toBe('forbidden');
      expect((await store.setPenMuted(ana, { userId: ben.userId, muted: true })).decision).toBe('forbidden');
      expect((await store.restoreElementVersion(ana, { elementId: teachers.id, version: 1 })).decision).toBe('forbidden');
      expect((await store.clearBoard(ana, {})).decision).toBe('forbidden');
      expect((await store.restoreBatch(ana, { batchId: randomUUID() })).decision).toBe('forbidden');
    });

    test('P7: reducing a student\'s rights ends their drag at once; their late commit is stale and moves nothing', async () => {
      const { roomId, teacher, ana, teachers, anas } = await lesson('everyone');
      const onTeachers = decided(await store.acquireLock(ana, { elementId: teachers.id, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS }), 'granted');
      const onOwn = decided(await store.acquireLock(ana, { elementId: anas.id, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS }), 'granted');
      const own = decided(await store.setLessonSettings(teacher, { editPolicy: 'own' }), 'applied');
      // "own" ends the drag of the teacher's element only; the room hears why before the change.
      expect(own.events.map((e) => [e.kind, 'elementId' in e.payload ? e.payload.elementId : null])).toEqual([
        ['lock.released', teachers.id],
        ['room.updated', null],
      ]);
      expect(own.room.settings.editPolicy).toBe('own');
      const late = await store.releaseLock(ana, { elementId: teachers.id, generation: onTeachers.generation, shape: { ...square, x: 500 }, requestId: requestId('r') });
      expect(late.decision).toBe('stale_generation');
      // Muting ends the rest.
      const muted = decided(await store.setPenMuted(teacher, { userId: ana.userId, muted: true }), 'applied');
      expect(muted.events.map((e) => e.kind)).toEqual(['lock.released', 'member.pen']);
      expect((await store.releaseLock(ana, { elementId: anas.id, generation: onOwn.generation, shape: { ...square, x: 9 }, requestId: requestId('r') })).decision).toBe('stale_generation');
      const shapes = (await store.loadRoomSnapshot(roomId))!.elements.map((e) => e.shape);
      expect(shapes.every((s) => s.x === 0)).toBe(true);
    });

    test('P8: history lists who did what, newest first, and filters by person', async () => {
      const { roomId, teacher, ana, anas } = await lesson('everyone');
      decided(await store.updateElement(ana, { id: anas.id, baseVersion: 1, shape: { ...square, x: 40 }, requestId: requestId('m') }), 'applied');
      decided(await store.updateElement(ana, { id: anas.id, baseVersion: 2, shape: { ...square, x: 40, fill: '#ff0000' }, requestId: requestId('s') }), 'applied');
      decided(await store.deleteElement(ana, { id: anas.id, erased: true }), 'applied');
      const mine = await store.listHistory(roomId, { by: ana.userId, limit: 50 });
      expect(mine.map((e) => [e.action, e.version, e.previousVersion])).toEqual([
        ['erased', 4, 3],
        ['restyled', 3, 2],
        ['moved', 2, 1],
        ['created', 1, null],
      ]);
      expect(mine.every((e) => e.deletedNow && e.by === ana.userId)).toBe(true);
      const all = await store.listHistory(roomId, { limit: 50 });
      expect(all.some((e) => e.by === teacher.userId)).toBe(true);
      expect(await store.listHistory(roomId, { limit: 2 })).toHaveLength(2);
    });

    test('P9: the teacher restores an erased element for everyone, with its author, and then an earlier version', async () => {
      const { roomId, teacher, ana, ben, teachers } = await lesson('everyone');
      decided(await store.updateElement(ben, { id: teachers.id, baseVersion: 1, shape: { ...square, w: 99 }, requestId: requestId('s') }), 'applied');
      decided(await store.deleteElement(ana, { id: teachers.id, erased: true }), 'applied');
      const back = decided(await store.restoreElementVersion(teacher, { elementId: teachers.id, version: 3 }), 'applied');
      expect(back.events.map((e) => e.kind)).toEqual(['element.restored']);
      expect(back.element).toMatchObject({ version: 4, createdBy: teacher.userId, shape: { w: 99 } });
      // Ben's restyle undone: version 1's shape again, as version 5.
      const undone = decided(await store.restoreElementVersion(teacher, { elementId: teachers.id, version: 1 }), 'applied');
      expect(undone.events.map((e) => e.kind)).toEqual(['element.updated']);
      expect(undone.element).toMatchObject({ version: 5, shape: { w: 10 } });
      expect((await store.loadRoomSnapshot(roomId))!.elements.find((e) => e.id === teachers.id)?.shape).toMatchObject({ w: 10 });
      expect((await store.restoreElementVersion(teacher, { elementId: teachers.id, version: 99 })).decision).toBe('not_found');
    });

    test('P9: "remove all of Ben\'s work" and "clear the board" are one action each, restored as one', async () => {
      const { roomId, teacher, ben, bens } = await lesson('everyone');
      decided(await store.createElement(ben, { id: randomUUID(), shape: square }), 'applied');
      const removed = decided(await store.clearBoard(teacher, { of: ben.userId }), 'applied');
      expect(removed.count).toBe(2);
      expect(removed.events.map((e) => e.kind)).toEqual(['element.deleted', 'element.deleted']);
      expect((await store.loadRoomSnapshot(roomId))!.elements.every((e) => e.createdBy !== ben.userId)).toBe(true);
      const cleared = decided(await store.clearBoard(teacher, {}), 'applied');
      expect(cleared.count).toBe(2);
      expect((await store.loadRoomSnapshot(roomId))!.elements).toEqual([]);
      const undoClear = decided(await store.restoreBatch(teacher, { batchId: cleared.batchId! }), 'applied');
      expect(undoClear.count).toBe(2);
      expect(undoClear.events.every((e: RoomEvent) => e.kind === 'element.restored')).toBe(true);
      // A second undo brings nothing twice.
      expect(decided(await store.restoreBatch(teacher, { batchId: cleared.batchId! }), 'applied').count).toBe(0);
      decided(await store.restoreBatch(teacher, { batchId: removed.batchId! }), 'applied');
      const back = (await store.loadRoomSnapshot(roomId))!.elements;
      expect(back).toHaveLength(4);
      expect(back.find((e) => e.id === bens.id)?.createdBy).toBe(ben.userId);
    });
  });
}
