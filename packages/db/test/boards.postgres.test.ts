/**
 * I11 for private boards on real Postgres, two connections: the end of a lesson and a student's
 * edit of their own board are serialised by the lesson row's lock. A board edit's revision bump
 * names the board row (`stillHeld` checks the board's own policy and status), so the lesson's
 * status is not re-checked there: it holds because `authorizeEdit` keeps the lesson row FOR KEY
 * SHARE until the edit commits, and ending a lesson takes that row FOR UPDATE first. These tests
 * prove both directions of that wait, then race the real operations. A create batch over several
 * boards (createBatch.ts) races an activity's freeze: it takes the lesson row first, so the two
 * never deadlock, and the batch lands whole before the freeze or is refused whole after it.
 */
import { randomUUID } from 'node:crypto';
import type { ElementShape } from '@wb/protocol';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { authorizeEdit } from '../src/editRights.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import type { Database } from '../src/database.ts';
import { CLOCK_START, SESSION_TTL_MS, newRoom, requestId, seatStudent } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const TRIALS = Number(process.env.WB_RACE_TRIALS ?? 60);
const RACE_TIMEOUT_MS = 120_000;
/** How long a blocked operation is given to (wrongly) finish before the test lets the other go. */
const BLOCKED_MS = 300;
const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };

const target = testDatabaseUrl();
const settledWithin = async (promise: Promise<unknown>, ms: number) =>
  Promise.race([promise.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

if ('skip' in target) {
  describe(`private board races on real Postgres: ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('private board races on real Postgres (two connections)', () => {
    const scratch = new ScratchDatabase(target.url);
    const clock = new FrozenClock(CLOCK_START);
    let dbOne: Database;
    let dbTwo: Database;
    let one: Store;
    let two: Store;

    beforeAll(async () => {
      await scratch.create({ migrated: true });
      dbOne = await scratch.open();
      dbTwo = await scratch.open();
      one = createStore(dbOne, clock);
      two = createStore(dbTwo, clock);
    });
    afterAll(() => scratch.drop());

    /** A lesson with its teacher and a student, an activity running, and the student's board. */
    async function lessonWithBoard() {
      const room = await newRoom(one);
      const teacherSession = randomUUID();
      await one.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seat = await seatStudent(one, room);
      const ana: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      const started = await one.startActivity(teacher, { activityId: randomUUID(), title: 'Race', start: { kind: 'blank' } });
      if (started.decision !== 'applied') throw new Error(started.decision);
      const board = started.boards.find((b) => b.ownerUserId === ana.userId)!;
      return { lessonId: room.roomId, teacher, ana, onBoard: { ...ana, roomId: board.id }, boardId: board.id };
    }

    it('I11: a board edit holding its rights keeps the lesson from ending until it commits', async () => {
      const { teacher, onBoard } = await lessonWithBoard();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      let authorized!: () => void;
      const holding = new Promise<void>((resolve) => (authorized = resolve));
      const edit = dbOne.db.transaction(async (tx) => {
        expect(await authorizeEdit(tx, clock, onBoard)).not.toBeNull();
        authorized();
        await gate;
      });
      // The end starts once the edit holds its rights (a fixed sleep lost that race on a loaded CI
      // machine: the end ran first and the edit was refused, as it should be then).
      await holding;
      const ended = two.endLesson(teacher);
      expect(await settledWithin(ended, BLOCKED_MS)).toBe(false);
      release();
      await edit;
      expect((await ended).decision).toBe('applied');
    });

    it("I11: a board edit arriving while the lesson ends waits for the end and is refused by the lesson's new status", async () => {
      const { lessonId, onBoard, boardId } = await lessonWithBoard();
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The end's first step, by hand: the lesson row FOR UPDATE, then its status. Sessions stay
      // open, so only the lesson's status can refuse the edit.
      const ending = dbTwo.db.transaction(async (tx) => {
        await tx.execute(sql`SELECT id FROM rooms WHERE id = ${lessonId}::uuid FOR UPDATE`);
        await tx.execute(sql`UPDATE rooms SET status = 'ended' WHERE id = ${lessonId}::uuid`);
        await gate;
      });
      await new Promise((resolve) => setTimeout(resolve, 50));
      const edit = one.createElement(onBoard, { id: randomUUID(), shape: square });
      expect(await settledWithin(edit, BLOCKED_MS)).toBe(false);
      release();
      await ending;
      expect((await edit).decision).toBe('not_a_member');
      const snapshot = await one.loadBoardSnapshot({ lessonId, sessionId: onBoard.sessionId, userId: onBoard.userId }, boardId);
      expect(snapshot === 'forbidden' ? [] : snapshot.elements).toEqual([]);
    });

    it(
      `I11: ${TRIALS} trials of ending the lesson racing a student's board edits: each edit is applied or refused whole, none is lost`,
      async () => {
        for (let trial = 0; trial < TRIALS; trial++) {
          const { teacher, onBoard, lessonId, boardId } = await lessonWithBoard();
          const mine = await one.createElement(onBoard, { id: randomUUID(), shape: square });
          if (mine.decision !== 'applied') throw new Error(mine.decision);
          const created = [randomUUID(), randomUUID()];
          const [ended, first, update, second] = await Promise.all([
            two.endLesson(teacher),
            one.createElement(onBoard, { id: created[0]!, shape: square }),
            one.updateElement(onBoard, { id: mine.element.id, baseVersion: 1, shape: { ...square, x: 5 }, requestId: requestId('u') }),
            one.createElement(onBoard, { id: created[1]!, shape: { ...square, x: 9 } }),
          ]);
          expect(ended.decision).toBe('applied');
          for (const edit of [first, update, second]) expect(['applied', 'not_a_member']).toContain(edit.decision);
          // The board holds exactly what was answered applied: nothing refused landed, nothing applied was lost.
          const kept = await one.loadBoardSnapshot({ lessonId, sessionId: teacher.sessionId, userId: teacher.userId }, boardId);
          if (kept === 'forbidden') throw new Error('the teacher reads every board');
          const answeredApplied = [mine.element.id, ...created.filter((_, i) => [first, second][i]!.decision === 'applied')];
          expect(kept.elements.map((e) => e.id).sort(), `trial ${trial}`).toEqual(answeredApplied.sort());
          const moved = kept.elements.find((e) => e.id === mine.element.id)!;
          expect(moved.shape.kind === 'rect' && moved.shape.x, `trial ${trial}: the update's answer was ${update.decision}`).toBe(update.decision === 'applied' ? 5 : 0);
        }
      },
      RACE_TIMEOUT_MS,
    );

    it(
      `I11: ${TRIALS} trials of freezing an activity racing one create batch over three students' boards: no deadlock, the batch lands whole before the freeze or is refused whole after it`,
      async () => {
        let before = 0;
        let after = 0;
        for (let trial = 0; trial < TRIALS; trial++) {
          const room = await newRoom(one);
          const teacherSession = randomUUID();
          await one.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
          const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
          const seats = [await seatStudent(one, room), await seatStudent(one, room), await seatStudent(one, room)];
          const started = await one.startActivity(teacher, { activityId: randomUUID(), title: 'Freeze race', start: { kind: 'blank' } });
          if (started.decision !== 'applied') throw new Error(started.decision);
          // Each owner on their own board, twice, in an order that is not the boards' id order.
          const owners = seats.map((seat) => ({ roomId: started.boards.find((b) => b.ownerUserId === seat.userId)!.id, sessionId: seat.sessionId, userId: seat.userId }));
          const requests = [...owners, ...owners.reverse()].map((actor, i) => ({ actor, id: randomUUID(), shape: { ...square, x: i } }));
          // Which side starts first varies by trial, so both orders occur under any load.
          const wait = (side: number) => (trial % 3 === side ? new Promise((resolve) => setTimeout(resolve, trial % 4)) : Promise.resolve());
          const [frozen, batch] = await Promise.all([
            wait(1).then(() => two.setActivityStatus(teacher, { activityId: started.activity.id, status: 'frozen' })),
            wait(2).then(() => one.createElements(requests)),
          ]);
          expect(frozen.decision).toBe('applied');
          const decisions = new Set(batch.map((r) => r.decision));
          expect(decisions.size).toBe(1);
          const landed = decisions.has('applied');
          if (landed) before++;
          else {
            expect([...decisions]).toEqual(['look_only']);
            after++;
          }
          // Each board holds its owner's two strokes if the batch was answered applied, none if refused.
          for (const owner of owners) {
            const board = await one.loadBoardSnapshot({ lessonId: room.roomId, sessionId: teacher.sessionId, userId: teacher.userId }, owner.roomId);
            if (board === 'forbidden') throw new Error('the teacher reads every board');
            const mine = requests.filter((r) => r.actor.roomId === owner.roomId).map((r) => r.id);
            expect(board.elements.map((e) => e.id).sort(), `trial ${trial}`).toEqual(landed ? mine.sort() : []);
          }
        }
        // Both orders occur: the race really was run, and a batch after the freeze is refused.
        expect(before).toBeGreaterThan(0);
        expect(after).toBeGreaterThan(0);
      },
      RACE_TIMEOUT_MS,
    );
  });
}
