/**
 * Checking for understanding in the store (checks.ts, migration 0018), as contract tests on PGlite
 * and real Postgres: the lesson's timer (its deadline on the database's clock, pause, a minute
 * more, stop, and private boards frozen at zero), quick polls (one answer per student, changed
 * until closed, results with no names) and the flags on private boards (the help queue's order).
 */
import { randomUUID } from 'node:crypto';
import { helpQueue, type ElementShape } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Reader } from '../src/boards.ts';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`timer, polls and flags on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    let store: Store;
    const clock = new FrozenClock(CLOCK_START);
    const at = (msFromStart: number) => new Date(clock.current.getTime() + msFromStart).toISOString();

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, clock);
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    async function lesson(students = 2) {
      const room = await newRoom(store);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const pupils: EditActor[] = [];
      for (let i = 0; i < students; i++) {
        const seat = await seatStudent(store, room);
        pupils.push({ roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId });
      }
      const reader = (who: EditActor): Reader => ({ lessonId: room.roomId, sessionId: who.sessionId, userId: who.userId });
      return { roomId: room.roomId, teacher, pupils, reader };
    }

    async function withBoards(students = 2) {
      const l = await lesson(students);
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Check', start: { kind: 'blank' } }), 'applied');
      const boardOf = (who: EditActor) => started.boards.find((b) => b.ownerUserId === who.userId)!.id;
      return { ...l, activityId: started.activity.id, boardOf };
    }

    const on = (who: EditActor, boardId: string): EditActor => ({ ...who, roomId: boardId });

    test('T1: the timer ends at a deadline on the database clock; pause keeps what is left, resume and a minute more move the deadline', async () => {
      const { roomId, teacher, pupils } = await lesson(1);
      expect(decided(await store.setTimer(pupils[0]!, { action: 'start', durationMs: 60_000 }, randomUUID()), 'forbidden'));
      const started = decided(await store.setTimer(teacher, { action: 'start', durationMs: 60_000 }, randomUUID()), 'applied');
      expect(started.room.timer).toEqual({ status: 'running', endsAt: at(60_000), remainingMs: null, durationMs: 60_000, freezeAtZero: false, sound: false });
      expect(started.events.map((e) => [e.kind, e.payload])).toEqual([['room.updated', started.room]]);
      // Durable with the lesson: read again from the store, the same deadline.
      expect((await store.findRoomById(roomId))?.timer).toEqual(started.room.timer);
      expect((await store.loadRoomSnapshot(roomId))?.room.timer).toEqual(started.room.timer);

      clock.advance(20_000);
      const paused = decided(await store.setTimer(teacher, { action: 'pause' }, randomUUID()), 'applied');
      expect(paused.room.timer).toMatchObject({ status: 'paused', endsAt: null, remainingMs: 40_000 });
      expect(decided(await store.setTimer(teacher, { action: 'pause' }, randomUUID()), 'already_applied').room.timer).toEqual(paused.room.timer);

      clock.advance(100_000); // paused: nothing moves
      const resumed = decided(await store.setTimer(teacher, { action: 'resume' }, randomUUID()), 'applied');
      expect(resumed.room.timer).toMatchObject({ status: 'running', endsAt: at(40_000), remainingMs: null });
      expect(decided(await store.setTimer(teacher, { action: 'resume' }, randomUUID()), 'already_applied'));

      const more = decided(await store.setTimer(teacher, { action: 'add' }, randomUUID()), 'applied');
      expect(more.room.timer).toMatchObject({ endsAt: at(100_000), durationMs: 120_000 });

      clock.advance(100_000); // at zero: a paused finished timer is refused, a minute more starts it again
      expect(decided(await store.setTimer(teacher, { action: 'pause' }, randomUUID()), 'already_applied'));
      clock.advance(5_000);
      expect(decided(await store.setTimer(teacher, { action: 'add' }, randomUUID()), 'applied').room.timer).toMatchObject({ endsAt: at(60_000), durationMs: 60_000 });

      const options = decided(await store.setTimer(teacher, { action: 'options', sound: true }, randomUUID()), 'applied');
      expect(options.room.timer).toMatchObject({ sound: true, freezeAtZero: false });
      expect(decided(await store.setTimer(teacher, { action: 'options', sound: true }, randomUUID()), 'already_applied'));

      expect(decided(await store.setTimer(teacher, { action: 'stop' }, randomUUID()), 'applied').room.timer).toBeNull();
      expect(decided(await store.setTimer(teacher, { action: 'stop' }, randomUUID()), 'already_applied').room.timer).toBeNull();
    });

    test('T2: at zero with "freeze at zero" a student cannot change their private board, one by one or batched, until time is added', async () => {
      const l = await withBoards(1);
      const ana = l.pupils[0]!;
      const board = l.boardOf(ana);
      decided(await store.setTimer(l.teacher, { action: 'start', durationMs: 30_000, freezeAtZero: true }, randomUUID()), 'applied');
      const drawn = decided(await store.createElement(on(ana, board), { id: randomUUID(), shape: square }), 'applied').element;

      clock.advance(30_000);
      expect((await store.createElement(on(ana, board), { id: randomUUID(), shape: square })).decision).toBe('look_only');
      expect((await store.createElements([{ actor: on(ana, board), id: randomUUID(), shape: square }]))[0]?.decision).toBe('look_only');
      expect((await store.deleteElement(on(ana, board), { id: drawn.id })).decision).toBe('look_only');
      // The class board and the teacher are not frozen.
      expect((await store.createElement(on(l.teacher, board), { id: randomUUID(), shape: square })).decision).toBe('applied');

      decided(await store.setTimer(l.teacher, { action: 'add' }, randomUUID()), 'applied');
      expect((await store.createElement(on(ana, board), { id: randomUUID(), shape: square })).decision).toBe('applied');

      // Without the option (kept from start to start until changed), zero freezes nothing.
      decided(await store.setTimer(l.teacher, { action: 'start', durationMs: 1_000, freezeAtZero: false }, randomUUID()), 'applied');
      clock.advance(2_000);
      expect((await store.createElement(on(ana, board), { id: randomUUID(), shape: square })).decision).toBe('applied');
    });

    test('T3: a timer request retried with its requestId is applied once: "+1 min" sent twice, or twice at once, adds one minute', async () => {
      const { teacher } = await lesson(0);
      const start = randomUUID();
      decided(await store.setTimer(teacher, { action: 'start', durationMs: 60_000 }, start), 'applied');
      clock.advance(10_000);
      // The start retried after 10 s does not restart the countdown.
      expect(decided(await store.setTimer(teacher, { action: 'start', durationMs: 60_000 }, start), 'already_applied').room.timer).toMatchObject({ endsAt: at(50_000) });

      const add = randomUUID();
      expect(decided(await store.setTimer(teacher, { action: 'add' }, add), 'applied').room.timer).toMatchObject({ endsAt: at(110_000), durationMs: 120_000 });
      expect(decided(await store.setTimer(teacher, { action: 'add' }, add), 'already_applied').room.timer).toMatchObject({ endsAt: at(110_000), durationMs: 120_000 });

      // The same request twice at once (a retry racing its first copy): one minute, one event.
      const raced = randomUUID();
      const both = await Promise.all([store.setTimer(teacher, { action: 'add' }, raced), store.setTimer(teacher, { action: 'add' }, raced)]);
      expect(both.map((r) => r.decision).sort()).toEqual(['already_applied', 'applied']);
      const after = await store.setTimer(teacher, { action: 'options', sound: false }, randomUUID());
      expect(decided(after, 'already_applied').room.timer).toMatchObject({ endsAt: at(170_000), durationMs: 180_000 });

      // Another session's request with the same id is its own request.
      const again = randomUUID();
      await store.openSession({ id: again, roomId: teacher.roomId, userId: teacher.userId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      decided(await store.setTimer({ ...teacher, sessionId: again }, { action: 'add' }, add), 'applied');
    });

    test('P1: one answer per student, changed until the poll closes; events and snapshots carry counts, never a name or a user id', async () => {
      const { roomId, teacher, pupils } = await lesson(3);
      const [ana, ben] = pupils as [EditActor, EditActor];
      const pollId = randomUUID();
      expect(decided(await store.openPoll(ana, { pollId, question: 'Ready?', kind: 'yesno' }), 'forbidden'));
      const opened = decided(await store.openPoll(teacher, { pollId, question: 'Ready?', kind: 'yesno' }), 'applied');
      expect(opened.poll).toMatchObject({ id: pollId, choices: ['Yes', 'No'], status: 'open', answered: 0, results: null, resultsShown: false });
      // A retry of the same open is the same poll.
      expect(decided(await store.openPoll(teacher, { pollId, question: 'Ready?', kind: 'yesno' }), 'already_applied').poll.id).toBe(pollId);

      expect(decided(await store.answerPoll(teacher, { pollId, choice: 0 }), 'forbidden'));
      expect(decided(await store.answerPoll(ana, { pollId, choice: 2 }), 'invalid'));
      expect(decided(await store.answerPoll(ana, { pollId, text: 'yes' }), 'invalid'));
      expect(decided(await store.answerPoll(ana, { pollId: randomUUID(), choice: 0 }), 'not_found'));

      const first = decided(await store.answerPoll(ana, { pollId, choice: 0 }), 'applied');
      expect(first.answer).toMatchObject({ userId: ana.userId, choice: 0, text: null });
      expect(first.poll.answered).toBe(1);
      expect(decided(await store.answerPoll(ana, { pollId, choice: 0 }), 'already_applied').answer.choice).toBe(0);
      const changed = decided(await store.answerPoll(ana, { pollId, choice: 1 }), 'applied');
      expect(changed.poll.answered).toBe(1);
      decided(await store.answerPoll(ben, { pollId, choice: 1 }), 'applied');

      const [stored] = await rows<{ n: unknown }>(testDb.database.db, sql`SELECT count(*) AS n FROM poll_answers WHERE poll_id = ${pollId}::uuid`);
      expect(Number(stored!.n)).toBe(2);

      const shown = decided(await store.showPoll(teacher, { pollId, shown: true }), 'applied');
      expect(shown.poll.results).toEqual({ counts: [0, 2], texts: [] });
      const closed = decided(await store.closePoll(teacher, { pollId }), 'applied');
      expect(closed.poll.status).toBe('closed');
      expect(decided(await store.closePoll(teacher, { pollId }), 'already_applied'));
      expect(decided(await store.answerPoll(pupils[2]!, { pollId, choice: 0 }), 'closed'));

      // What reaches the class names nobody.
      const log = await store.eventsAfter(roomId, 0, 1_000);
      if (log.kind !== 'replay') throw new Error(log.kind);
      const pollEvents = log.events.filter((e) => e.kind === 'poll.updated');
      expect(pollEvents.length).toBe(6); // opened, three answers, shown, closed
      const snapshot = await store.loadRoomSnapshot(roomId);
      expect(snapshot?.poll).toEqual(closed.poll);
      for (const wire of [JSON.stringify(pollEvents), JSON.stringify(snapshot?.poll)]) {
        for (const p of pupils) expect(wire).not.toContain(p.userId);
        expect(wire).not.toContain('Student');
      }

      // The teacher reads every answer; a student only their own.
      const teachers = decided(await store.getPoll(teacher), 'ok');
      expect(teachers.answers.map((a) => [a.userId, a.choice]).sort()).toEqual([[ana.userId, 1], [ben.userId, 1]].sort());
      expect(decided(await store.getPoll(ben), 'ok').answers.map((a) => a.userId)).toEqual([ben.userId]);
      expect(decided(await store.getPoll(pupils[2]!), 'ok').answers).toEqual([]);
    });

    test('P2: typed answers count together whatever their case; opening a poll closes the open one; the export keeps every poll with its answers', async () => {
      const { roomId, teacher, pupils } = await lesson(3);
      const first = randomUUID();
      decided(await store.openPoll(teacher, { pollId: first, question: 'Pick', kind: 'custom', choices: ['Red', 'Blue'] }), 'applied');
      decided(await store.answerPoll(pupils[0]!, { pollId: first, choice: 1 }), 'applied');
      const second = randomUUID();
      clock.advance(1_000);
      const opened = decided(await store.openPoll(teacher, { pollId: second, question: 'Capital of France?', kind: 'text' }), 'applied');
      expect(opened.events.map((e) => (e.kind === 'poll.updated' ? [e.payload.id, e.payload.status] : null))).toEqual([
        [first, 'closed'],
        [second, 'open'],
      ]);
      expect(decided(await store.answerPoll(pupils[0]!, { pollId: first, choice: 0 }), 'closed'));
      decided(await store.answerPoll(pupils[0]!, { pollId: second, text: 'Paris' }), 'applied');
      decided(await store.answerPoll(pupils[1]!, { pollId: second, text: 'paris' }), 'applied');
      decided(await store.answerPoll(pupils[2]!, { pollId: second, text: 'Lyon' }), 'applied');
      const shown = decided(await store.showPoll(teacher, { pollId: second, shown: true }), 'applied');
      expect(shown.poll.results).toEqual({ counts: [], texts: [{ text: 'Paris', count: 2 }, { text: 'Lyon', count: 1 }] });

      const kept = await store.listLessonPolls(roomId);
      expect(kept.map((k) => [k.poll.id, k.poll.results?.counts, k.answers.length])).toEqual([
        [first, [0, 1], 1],
        [second, [], 3],
      ]);
    });

    test('F1: help requests queue in the order raised; the owner flags, the teacher clears, nobody flags another\'s board', async () => {
      const l = await withBoards(3);
      const [ana, ben, cy] = l.pupils as [EditActor, EditActor, EditActor];
      const flagged = decided(await store.setBoardFlag(ben, { boardId: l.boardOf(ben), flag: 'help' }), 'applied');
      expect(flagged).toMatchObject({ flag: 'help', flaggedAt: clock.current.toISOString() });
      expect(flagged.events.map((e) => [e.roomId, e.kind, e.payload])).toEqual([
        [l.boardOf(ben), 'board.flagged', { boardId: l.boardOf(ben), flag: 'help', flaggedAt: clock.current.toISOString(), by: ben.userId }],
      ]);
      clock.advance(1_000);
      decided(await store.setBoardFlag(ana, { boardId: l.boardOf(ana), flag: 'help' }), 'applied');
      clock.advance(1_000);
      decided(await store.setBoardFlag(cy, { boardId: l.boardOf(cy), flag: 'done' }), 'applied');
      expect(decided(await store.setBoardFlag(ben, { boardId: l.boardOf(ben), flag: 'help' }), 'already_applied').flag).toBe('help');

      expect(decided(await store.setBoardFlag(ana, { boardId: l.boardOf(ben), flag: null }), 'board_forbidden'));
      expect(decided(await store.setBoardFlag(l.teacher, { boardId: l.boardOf(ana), flag: 'done' }), 'forbidden'));
      expect(decided(await store.setBoardFlag(ana, { boardId: l.roomId, flag: 'done' }), 'board_forbidden'));

      const boards = await store.listBoards(l.reader(l.teacher));
      expect(helpQueue(boards).map((b) => b.ownerUserId)).toEqual([ben.userId, ana.userId]);
      expect(boards.find((b) => b.ownerUserId === cy.userId)).toMatchObject({ flag: 'done' });

      decided(await store.setBoardFlag(l.teacher, { boardId: l.boardOf(ben), flag: null }), 'applied');
      expect(helpQueue(await store.listBoards(l.reader(l.teacher))).map((b) => b.ownerUserId)).toEqual([ana.userId]);
      // A student sees their own flag only.
      expect((await store.listBoards(l.reader(ana))).map((b) => [b.ownerUserId, b.flag])).toEqual([[ana.userId, 'help']]);

      // An ended activity's boards take no flags.
      decided(await store.setActivityStatus(l.teacher, { activityId: l.activityId, status: 'ended' }), 'applied');
      expect(decided(await store.setBoardFlag(cy, { boardId: l.boardOf(cy), flag: 'help' }), 'board_forbidden'));
    });
  });
}
