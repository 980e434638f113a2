/**
 * Private student boards and activities (docs/boards.md) as store contract tests on PGlite and
 * real Postgres: each board is scoped (its own gap-free revision and log, I1), a student reads and
 * writes only their own board until it is shown (I12, I11), a late joiner gets a board, freezing
 * and revocation hold per board, and the class board is untouched.
 */
import { randomUUID } from 'node:crypto';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import { FrozenClock } from '../src/clock.ts';
import { purgeMember, purgeRoom } from '../src/retention.ts';
import { rows } from '../src/sql.ts';
import type { Reader } from '../src/boards.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, requestId, roomRevision, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`private boards on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    /** A lesson with its teacher, two students and two elements on the class board. */
    async function lesson() {
      const room = await newRoom(store);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seatA = await seatStudent(store, room);
      const seatB = await seatStudent(store, room);
      const ana: EditActor = { roomId: room.roomId, sessionId: seatA.sessionId, userId: seatA.userId };
      const ben: EditActor = { roomId: room.roomId, sessionId: seatB.sessionId, userId: seatB.userId };
      const first = decided(await store.createElement(teacher, { id: randomUUID(), shape: square }), 'applied').element;
      const second = decided(await store.createElement(teacher, { id: randomUUID(), shape: { ...square, x: 50 } }), 'applied').element;
      const reader = (who: EditActor): Reader => ({ lessonId: room.roomId, sessionId: who.sessionId, userId: who.userId });
      return { ...room, teacher, ana, ben, first, second, reader };
    }

    const on = (who: EditActor, boardId: string): EditActor => ({ ...who, roomId: boardId });

    test('a started activity gives every student a board with a copy of the class board; the class board is unchanged', async () => {
      const l = await lesson();
      const before = await roomRevision(testDb.database, l.roomId);
      const started = decided(
        await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Fractions', start: { kind: 'board' } }),
        'applied',
      );
      expect(started.boards.map((b) => b.ownerUserId).sort()).toEqual([l.ana.userId, l.ben.userId].sort());
      // The lesson's log moves by one: the activity; the copies are in each board's own log.
      expect(await roomRevision(testDb.database, l.roomId)).toBe(before + 1);
      expect(started.events.filter((e) => e.roomId === l.roomId).map((e) => e.kind)).toEqual(['activity.updated']);
      for (const board of started.boards) {
        const snapshot = await store.loadBoardSnapshot(l.reader(l.teacher), board.id);
        if (snapshot === 'forbidden') throw new Error('teacher refused');
        expect(snapshot.elements.map((e) => e.id)).toEqual([l.first.id, l.second.id]);
        // The copy is the student's: the `own` policy lets them change it.
        expect(snapshot.elements.every((e) => e.createdBy === board.ownerUserId)).toBe(true);
      }
      const classSnapshot = await store.loadRoomSnapshot(l.roomId);
      expect(classSnapshot?.elements.map((e) => e.id)).toEqual([l.first.id, l.second.id]);
      expect(decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Again', start: { kind: 'blank' } }), 'activity_running'))
        .toBeTruthy();
      // A retry of the same start answers the same boards and appends nothing.
      const retried = decided(await store.startActivity(l.teacher, { activityId: started.activity.id, title: 'Fractions', start: { kind: 'board' } }), 'applied');
      expect(retried.boards.map((b) => b.id).sort()).toEqual(started.boards.map((b) => b.id).sort());
      expect(retried.events).toEqual([]);
      expect(await roomRevision(testDb.database, l.roomId)).toBe(before + 1);
      expect((await store.startActivity(l.ana, { activityId: randomUUID(), title: 'Mine', start: { kind: 'blank' } })).decision).toBe('forbidden');
    });

    test('a student who joins after the start gets a board of the selection; opening it again finds the same board', async () => {
      const l = await lesson();
      decided(
        await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Pick', start: { kind: 'selection', elementIds: [l.second.id] } }),
        'applied',
      );
      const late = await seatStudent(store, { roomId: l.roomId, teacherId: l.teacherId });
      const lateActor: EditActor = { roomId: l.roomId, sessionId: late.sessionId, userId: late.userId };
      const opened = decided(await store.openMyBoard(lateActor), 'applied');
      expect(opened.board.ownerUserId).toBe(late.userId);
      expect(opened.events.map((e) => [e.roomId, e.revision, e.kind])).toEqual([[opened.board.id, 1, 'element.created']]);
      const again = decided(await store.openMyBoard(lateActor), 'applied');
      expect(again.board.id).toBe(opened.board.id);
      expect(again.events).toEqual([]);
      expect([opened.created, again.created]).toEqual([true, false]);
      expect((await store.listBoards(l.reader(l.teacher))).length).toBe(3);
      expect((await store.openMyBoard(l.teacher)).decision).toBe('not_a_student');
    });

    test('I1: a board\'s events carry the board and its own gap-free revisions; snapshot and replay are per board', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Draw', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const bens = started.boards.find((b) => b.ownerUserId === l.ben.userId)!;
      const lessonBefore = await roomRevision(testDb.database, l.roomId);
      const made = decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied');
      const moved = decided(
        await store.updateElement(on(l.ana, anas.id), { id: made.element.id, baseVersion: 1, shape: { ...square, x: 5 }, requestId: requestId('u') }),
        'applied',
      );
      decided(await store.createElement(on(l.ben, bens.id), { id: randomUUID(), shape: square }), 'applied');
      expect([...made.events, ...moved.events].map((e) => [e.roomId, e.revision])).toEqual([
        [anas.id, 1],
        [anas.id, 2],
      ]);
      expect(await roomRevision(testDb.database, l.roomId)).toBe(lessonBefore);
      const replay = await store.boardEventsAfter(l.reader(l.ana), anas.id, 0, 100);
      if (replay === 'forbidden' || replay.kind !== 'replay') throw new Error(`no replay: ${JSON.stringify(replay)}`);
      expect(replay.events.map((e) => e.kind)).toEqual(['element.created', 'element.updated']);
      expect(replay.events.every((e) => e.roomId === anas.id)).toBe(true);
      const snapshot = await store.loadBoardSnapshot(l.reader(l.ana), anas.id);
      if (snapshot === 'forbidden') throw new Error('owner refused');
      expect(snapshot.revision).toBe(2);
      expect(snapshot.elements.map((e) => e.shape)).toEqual([{ ...square, x: 5 }]);
      // The lesson's replay holds no board event.
      const lessonReplay = await store.eventsAfter(l.roomId, 0, 1000);
      if (lessonReplay.kind !== 'replay') throw new Error('lesson log pruned');
      expect(lessonReplay.events.every((e) => e.roomId === l.roomId)).toBe(true);
    });

    test('I1, I11, I12: one create batch over the class board and two boards decides each stroke by its board\'s rights, at that board\'s own gap-free revisions, in one statement', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Batch', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const bens = started.boards.find((b) => b.ownerUserId === l.ben.userId)!;
      const lessonBefore = await roomRevision(testDb.database, l.roomId);
      const statementsBefore = testDb.database.statements.snapshot().get('createElements') ?? 0;
      const shape = (x: number) => ({ ...square, x });
      const results = await store.createElements([
        { actor: on(l.ana, anas.id), id: randomUUID(), shape: shape(1) },
        { actor: on(l.ben, bens.id), id: randomUUID(), shape: shape(2) },
        // Ben on Ana's board: not his until shown (I12), refused inside the batch.
        { actor: on(l.ben, anas.id), id: randomUUID(), shape: shape(3) },
        { actor: l.teacher, id: randomUUID(), shape: shape(4) },
        { actor: on(l.teacher, bens.id), id: randomUUID(), shape: shape(5) },
        { actor: on(l.ana, anas.id), id: randomUUID(), shape: shape(6) },
        { actor: l.ana, id: randomUUID(), shape: shape(7) },
      ]);
      expect(testDb.database.statements.snapshot().get('createElements')! - statementsBefore).toBe(1);
      expect(results.map((r) => r.decision)).toEqual(['applied', 'applied', 'not_a_member', 'applied', 'applied', 'applied', 'applied']);
      const at = (i: number) => {
        const r = decided(results[i]!, 'applied');
        return [r.events[0]!.roomId, r.events[0]!.revision, r.element.z];
      };
      expect([0, 1, 3, 4, 5, 6].map(at)).toEqual([
        [anas.id, 1, 1],
        [bens.id, 1, 1],
        [l.roomId, lessonBefore + 1, lessonBefore + 1],
        [bens.id, 2, 2],
        [anas.id, 2, 2],
        [l.roomId, lessonBefore + 2, lessonBefore + 2],
      ]);
      expect(await roomRevision(testDb.database, anas.id)).toBe(2);
      expect(await roomRevision(testDb.database, bens.id)).toBe(2);
      expect(await roomRevision(testDb.database, l.roomId)).toBe(lessonBefore + 2);
      // Each board's log holds exactly its own strokes, as answered.
      const replay = await store.boardEventsAfter(l.reader(l.ana), anas.id, 0, 100);
      if (replay === 'forbidden' || replay.kind !== 'replay') throw new Error(`no replay: ${JSON.stringify(replay)}`);
      expect(replay.events).toEqual([0, 5].flatMap((i) => decided(results[i]!, 'applied').events));

      // Frozen: the boards are look-only for their owners inside a batch too; the teacher still comments.
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'frozen' }), 'applied');
      const frozen = await store.createElements([
        { actor: on(l.ana, anas.id), id: randomUUID(), shape: shape(8) },
        { actor: on(l.teacher, anas.id), id: randomUUID(), shape: shape(9) },
        { actor: l.ana, id: randomUUID(), shape: shape(10) },
      ]);
      expect(frozen.map((r) => r.decision)).toEqual(['look_only', 'applied', 'applied']);
      expect(decided(frozen[1]!, 'applied').events[0]!.revision).toBe(3);
    });

    test('I12, I11: a student neither reads nor writes another student\'s board until it is shown; the teacher does both', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Private', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const mark = decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied').element;

      expect(await store.loadBoardSnapshot(l.reader(l.ben), anas.id)).toBe('forbidden');
      expect(await store.boardEventsAfter(l.reader(l.ben), anas.id, 0, 100)).toBe('forbidden');
      expect(await store.readableBoard(l.reader(l.ben), anas.id)).toBeNull();
      expect((await store.listBoards(l.reader(l.ben))).map((b) => b.ownerUserId)).toEqual([l.ben.userId]);
      expect((await store.createElement(on(l.ben, anas.id), { id: randomUUID(), shape: square })).decision).toBe('not_a_member');
      expect(
        (await store.updateElement(on(l.ben, anas.id), { id: mark.id, baseVersion: 1, shape: { ...square, x: 9 }, requestId: requestId('u') })).decision,
      ).toBe('not_a_member');
      expect((await store.deleteElement(on(l.ben, anas.id), { id: mark.id })).decision).toBe('not_a_member');
      expect((await store.acquireLock(on(l.ben, anas.id), { elementId: mark.id, requestId: requestId('l'), firstTermMs: 2_000 })).decision).toBe(
        'not_a_member',
      );
      // A board id is never a lesson: it cannot be joined or found as one.
      expect(await store.findRoomById(anas.id)).toBeNull();
      expect((await store.joinRoom({ roomId: anas.id, displayName: 'Intruder', memberKeyHash: randomUUID(), role: 'student' })).decision).toBe('no_room');

      // The teacher comments on Ana's board; Ana sees it in her board's log.
      const comment = decided(await store.createElement(on(l.teacher, anas.id), { id: randomUUID(), shape: { ...square, x: 30 } }), 'applied');
      expect(comment.events[0]?.roomId).toBe(anas.id);

      // Shown: Ben may read it, still not write it; hidden again: refused again.
      const shown = decided(await store.setBoardsShown(l.teacher, { activityId: started.activity.id, boards: [{ boardId: anas.id, label: 'Student A' }] }), 'applied');
      expect(shown.activity.shown).toEqual([{ boardId: anas.id, label: 'Student A' }]);
      expect(shown.events.map((e) => [e.roomId, e.kind])).toEqual([[l.roomId, 'activity.updated']]);
      const seen = await store.loadBoardSnapshot(l.reader(l.ben), anas.id);
      if (seen === 'forbidden') throw new Error('shown board refused');
      expect(seen.elements.map((e) => e.id)).toEqual([mark.id, comment.element.id]);
      expect((await store.createElement(on(l.ben, anas.id), { id: randomUUID(), shape: square })).decision).toBe('not_a_member');
      decided(await store.setBoardsShown(l.teacher, { activityId: started.activity.id, boards: [{ boardId: anas.id, label: null }] }), 'applied');
      expect(await store.loadBoardSnapshot(l.reader(l.ben), anas.id)).toBe('forbidden');
      expect((await store.setBoardsShown(l.ana, { activityId: started.activity.id, boards: [{ boardId: anas.id, label: 'Me' }] })).decision).toBe(
        'forbidden',
      );
    });

    test('I11: freezing makes every board look-only (the teacher still comments); ending keeps the boards', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Freeze', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const mark = decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied').element;
      decided(await store.acquireLock(on(l.ana, anas.id), { elementId: mark.id, requestId: requestId('l'), firstTermMs: 2_000 }), 'granted');
      const frozen = decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'frozen' }), 'applied');
      // Ana's drag ends with the freeze, in her board's log.
      expect(frozen.events.map((e) => [e.roomId, e.kind])).toEqual([
        [l.roomId, 'activity.updated'],
        [anas.id, 'lock.released'],
      ]);
      expect((await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square })).decision).toBe('look_only');
      decided(await store.createElement(on(l.teacher, anas.id), { id: randomUUID(), shape: square }), 'applied');
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'running' }), 'applied');
      decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied');
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'ended' }), 'applied');
      expect((await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square })).decision).toBe('look_only');
      expect((await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'frozen' })).decision).toBe('forbidden');
      expect(await store.currentActivity(l.roomId)).toBeNull();
      // Kept with the lesson: the teacher lists them, Ana still reads hers; a new activity may start.
      expect((await store.listBoards(l.reader(l.teacher), started.activity.id)).length).toBe(2);
      expect(await store.loadBoardSnapshot(l.reader(l.ana), anas.id)).not.toBe('forbidden');
      decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Next', start: { kind: 'blank' } }), 'applied');
    });

    test('I11: ending is undone by running the activity again while it is the lesson\'s latest: the boards are the students\' again; after a newer activity it stays ended', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Undo', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'ended' }), 'applied');
      expect((await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square })).decision).toBe('look_only');
      // A student may not undo it.
      expect((await store.setActivityStatus(l.ana, { activityId: started.activity.id, status: 'running' })).decision).toBe('forbidden');

      const reopened = decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'running' }), 'applied');
      expect(reopened.activity.status).toBe('running');
      expect(reopened.events.map((e) => [e.roomId, e.kind])).toEqual([[l.roomId, 'activity.updated']]);
      expect((await store.currentActivity(l.roomId))?.id).toBe(started.activity.id);
      decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied');
      // A retry of the undo changes nothing more.
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'running' }), 'already_applied');

      // Ended again, then a newer activity: the first stays ended for good.
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'ended' }), 'applied');
      clock.advance(1_000);
      const next = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Next', start: { kind: 'blank' } }), 'applied');
      expect((await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'running' })).decision).toBe('forbidden');
      decided(await store.setActivityStatus(l.teacher, { activityId: next.activity.id, status: 'ended' }), 'applied');
      expect((await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'running' })).decision).toBe('forbidden');
      expect((await store.currentActivity(l.roomId))).toBeNull();
      expect((await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square })).decision).toBe('look_only');
    });

    test('last drew: a teacher\'s board list says how long ago each owner last changed an element, on the database clock; not the starting copy, not the teacher\'s comments', async () => {
      const l = await lesson();
      // Started with a copy of the class board: the copies are the owners' elements, but not their drawing.
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Drew', start: { kind: 'board' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const bens = started.boards.find((b) => b.ownerUserId === l.ben.userId)!;
      const drew = async () =>
        new Map((await store.listBoards(l.reader(l.teacher), started.activity.id)).map((b) => [b.ownerUserId, b.lastDrewMsAgo]));
      expect(await drew()).toEqual(new Map([[l.ana.userId, undefined], [l.ben.userId, undefined]]));

      clock.advance(1_000);
      const mark = decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied').element;
      clock.advance(4_000);
      // The teacher's comments on both boards change neither.
      decided(await store.createElement(on(l.teacher, anas.id), { id: randomUUID(), shape: { ...square, x: 30 } }), 'applied');
      decided(await store.createElement(on(l.teacher, bens.id), { id: randomUUID(), shape: { ...square, x: 30 } }), 'applied');
      expect(await drew()).toEqual(new Map([[l.ana.userId, 4_000], [l.ben.userId, undefined]]));

      // Ana's move (a lock's release with the shape) is drawing; the teacher's move of it is not.
      clock.advance(2_000);
      const grant = decided(await store.acquireLock(on(l.ana, anas.id), { elementId: mark.id, requestId: requestId('l'), firstTermMs: 2_000 }), 'granted');
      decided(await store.releaseLock(on(l.ana, anas.id), { elementId: mark.id, generation: grant.generation, shape: { ...square, x: 70 }, requestId: requestId('r') }), 'applied');
      clock.advance(1_500);
      const teachers = decided(await store.acquireLock(on(l.teacher, anas.id), { elementId: mark.id, requestId: requestId('l'), firstTermMs: 2_000 }), 'granted');
      decided(await store.releaseLock(on(l.teacher, anas.id), { elementId: mark.id, generation: teachers.generation, shape: { ...square, x: 90 }, requestId: requestId('r') }), 'applied');
      expect((await drew()).get(l.ana.userId)).toBe(1_500);
      // A student's list never carries it (their own board included).
      expect((await store.listBoards(l.reader(l.ana))).map((b) => b.lastDrewMsAgo)).toEqual([undefined]);
    });

    test('I11: on a private board the teacher moves and resizes any element, frozen or not; the owner moves their own, never the teacher\'s comment', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Move', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const mark = decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied').element;
      const comment = decided(await store.createElement(on(l.teacher, anas.id), { id: randomUUID(), shape: { ...square, x: 30 } }), 'applied').element;
      const move = async (who: EditActor, elementId: string, shape: ElementShape) => {
        const grant = await store.acquireLock(on(who, anas.id), { elementId, requestId: requestId('l'), firstTermMs: 2_000 });
        if (grant.decision !== 'granted') return grant.decision;
        return (await store.releaseLock(on(who, anas.id), { elementId, generation: grant.generation, shape, requestId: requestId('r') })).decision;
      };
      expect(await move(l.ana, comment.id, { ...square, x: 500 })).toBe('feedback');
      expect(await move(l.ana, mark.id, { ...square, x: 5 })).toBe('applied');
      decided(await store.setActivityStatus(l.teacher, { activityId: started.activity.id, status: 'frozen' }), 'applied');
      expect(await move(l.ana, mark.id, { ...square, x: 6 })).toBe('look_only');
      expect(await move(l.teacher, mark.id, { ...square, x: 200, w: 40, h: 40 })).toBe('applied');
      expect(await move(l.ben, mark.id, { ...square, x: 300 })).toBe('not_a_member');
      const snapshot = await store.loadBoardSnapshot(l.reader(l.teacher), anas.id);
      if (snapshot === 'forbidden') throw new Error('teacher refused');
      expect(snapshot.elements.find((e) => e.id === mark.id)?.shape).toMatchObject({ x: 200, w: 40, h: 40 });
      expect(snapshot.elements.find((e) => e.id === comment.id)?.shape.x).toBe(30);
    });

    test('F1: the teacher\'s feedback on a private board is refused to its student (move, group hold, change, erase) under any board policy; their own work stays theirs', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Feedback', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const mine = decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied').element;
      const stamp = decided(
        await store.createElement(on(l.teacher, anas.id), { id: randomUUID(), shape: { kind: 'text', x: 40, y: 0, w: 40, h: 40, text: '✓', stroke: '#2f9e44', fontSize: 32 } }),
        'applied',
      ).element;
      const attempts = async () => ({
        lock: (await store.acquireLock(on(l.ana, anas.id), { elementId: stamp.id, requestId: requestId('l'), firstTermMs: 2_000 })).decision,
        group: (await store.acquireLocks(on(l.ana, anas.id), { elementIds: [mine.id, stamp.id], requestId: requestId('g'), firstTermMs: 2_000 })).decision,
        update: (await store.updateElement(on(l.ana, anas.id), { id: stamp.id, baseVersion: stamp.version, shape: { ...square, x: 99 }, requestId: requestId('u') })).decision,
        erase: (await store.deleteElement(on(l.ana, anas.id), { id: stamp.id, erased: true })).decision,
      });
      const refused = { lock: 'feedback', group: 'feedback', update: 'feedback', erase: 'feedback' };
      const revision = await roomRevision(testDb.database, anas.id);
      expect(await attempts()).toEqual(refused);
      // Whatever the board's policy: even were it `everyone`, the teacher's layer is not the student's.
      await testDb.database.db.execute(sql`UPDATE rooms SET edit_policy = 'everyone' WHERE id = ${anas.id}::uuid`);
      expect(await attempts()).toEqual(refused);
      expect(await roomRevision(testDb.database, anas.id)).toBe(revision);
      // Her own work is hers; the teacher may change the feedback.
      decided(await store.updateElement(on(l.ana, anas.id), { id: mine.id, baseVersion: mine.version, shape: { ...square, x: 7 }, requestId: requestId('u') }), 'applied');
      decided(await store.updateElement(on(l.teacher, anas.id), { id: stamp.id, baseVersion: stamp.version, shape: { kind: 'text', x: 60, y: 0, w: 40, h: 40, text: '★', stroke: '#2f9e44', fontSize: 32 }, requestId: requestId('u') }), 'applied');
      const snapshot = await store.loadBoardSnapshot(l.reader(l.ana), anas.id);
      if (snapshot === 'forbidden') throw new Error('the owner reads her board');
      expect(snapshot.elements.find((e) => e.id === stamp.id)?.shape).toMatchObject({ x: 60, text: '★' });
    });

    test('I11: the lesson\'s end holds on every board: a student\'s board edit after it is refused, one before it stays; the board\'s bump names the board row', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'End', start: { kind: 'blank' } }), 'applied');
      const boardA = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      const before = decided(await store.createElement(on(l.ana, boardA.id), { id: randomUUID(), shape: square }), 'applied');
      decided(await store.endLesson(l.teacher), 'applied');
      const revision = await roomRevision(testDb.database, boardA.id);
      expect((await store.createElement(on(l.ana, boardA.id), { id: randomUUID(), shape: square })).decision).toBe('not_a_member');
      expect(
        (await store.updateElement(on(l.ana, boardA.id), { id: before.element.id, baseVersion: 1, shape: { ...square, x: 5 }, requestId: requestId('u') })).decision,
      ).toBe('not_a_member');
      expect(await roomRevision(testDb.database, boardA.id)).toBe(revision);
      // The edit made before the end is kept with the lesson.
      const kept = await store.loadBoardSnapshot(l.reader(l.teacher), boardA.id);
      if (kept === 'forbidden') throw new Error('the teacher reads every board');
      expect(kept.elements.map((e) => e.id)).toEqual([before.element.id]);
    });

    test('revocation holds on the student\'s board: a removed student neither edits nor reads it', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Revoke', start: { kind: 'blank' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied');
      const revoked = await store.revokeMember({ roomId: l.roomId, userId: l.ana.userId, by: l.teacherId, reason: null, requestId: requestId('r') });
      expect(revoked.decision).toBe('revoked');
      expect((await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square })).decision).toBe('not_a_member');
      expect(await store.loadBoardSnapshot(l.reader(l.ana), anas.id)).toBe('forbidden');
      expect((await store.openMyBoard(l.ana)).decision).toBe('not_a_member');
      // Ben's board is untouched by Ana's revocation; the teacher still reads Ana's.
      const bens = started.boards.find((b) => b.ownerUserId === l.ben.userId)!;
      decided(await store.createElement(on(l.ben, bens.id), { id: randomUUID(), shape: square }), 'applied');
      expect(await store.loadBoardSnapshot(l.reader(l.teacher), anas.id)).not.toBe('forbidden');
    });

    test('retention: a member\'s purge takes their boards, a lesson\'s purge its boards and activities', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Purge', start: { kind: 'board' } }), 'applied');
      const anas = started.boards.find((b) => b.ownerUserId === l.ana.userId)!;
      decided(await store.createElement(on(l.ana, anas.id), { id: randomUUID(), shape: square }), 'applied');
      const count = async (query: ReturnType<typeof sql>) => Number((await rows<{ n: unknown }>(testDb.database.db, query))[0]?.n);
      await purgeMember(testDb.database, l.roomId, l.ana.userId, 'test');
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE id = ${anas.id}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM elements WHERE room_id = ${anas.id}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE parent_id = ${l.roomId}::uuid`)).toBe(1);
      await purgeRoom(testDb.database, l.roomId, 'test');
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE id = ${l.roomId}::uuid OR parent_id = ${l.roomId}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM activities WHERE room_id = ${l.roomId}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM room_events WHERE room_id = ANY(${`{${started.boards.map((b) => b.id).join(',')}}`}::uuid[])`)).toBe(0);
    });
  });
}
