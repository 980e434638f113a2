/**
 * Group drag locks (docs/store.md, "Group locks", G1-G6) as store contract tests on PGlite and real
 * Postgres: a multi-selection drag takes every element's lock in one transaction or none, fenced
 * like single locks and refused by the same rules.
 */
import { randomUUID } from 'node:crypto';
import type { EditPolicy, ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, requestId, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

const FIRST_TERM_MS = 2_000;
const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`group drag locks on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    /** A lesson with its teacher and two students; Ana has drawn three squares, Ben one. */
    async function lesson(policy: EditPolicy = 'everyone') {
      const room = await newRoom(store, { editPolicy: 'everyone' });
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seatA = await seatStudent(store, room);
      const seatB = await seatStudent(store, room);
      const ana: EditActor = { roomId: room.roomId, sessionId: seatA.sessionId, userId: seatA.userId };
      const ben: EditActor = { roomId: room.roomId, sessionId: seatB.sessionId, userId: seatB.userId };
      const draw = async (who: EditActor) => decided(await store.createElement(who, { id: randomUUID(), shape: square }), 'applied').element.id;
      const anas = [await draw(ana), await draw(ana), await draw(ana)];
      const bens = await draw(ben);
      if (policy !== 'everyone') decided(await store.setLessonSettings(teacher, { editPolicy: policy }), 'applied');
      return { teacher, ana, ben, anas, bens };
    }

    const acquireMany = (who: EditActor, elementIds: string[], id = requestId('g')) =>
      store.acquireLocks(who, { elementIds, requestId: id, firstTermMs: FIRST_TERM_MS });

    test('G1: a free group is granted whole, each lock fenced one generation up, one lock.granted each', async () => {
      const { ana, anas } = await lesson();
      const granted = decided(await acquireMany(ana, anas), 'granted');
      expect(granted.grants.map((g) => g.element.id)).toEqual(anas);
      expect(granted.grants.map((g) => g.generation)).toEqual([1, 1, 1]);
      expect(granted.grants.every((g) => g.element.lock?.sessionId === ana.sessionId)).toBe(true);
      expect(granted.events.map((e) => e.kind)).toEqual(['lock.granted', 'lock.granted', 'lock.granted']);
      // Each is an ordinary lock afterwards: released one by one under its own generation.
      for (const grant of granted.grants) {
        const released = await store.releaseLock(ana, { elementId: grant.element.id, generation: grant.generation, shape: { ...square, x: 5 }, requestId: requestId('r') });
        expect(released.decision).toBe('applied');
      }
    });

    test('G2: one element held by another session refuses the whole group, names its holder, and takes nothing', async () => {
      const { ana, ben, anas } = await lesson();
      const [first, second, third] = anas as [string, string, string];
      decided(await store.acquireLock(ben, { elementId: second, requestId: requestId('b'), firstTermMs: FIRST_TERM_MS }), 'granted');
      const refused = decided(await acquireMany(ana, [first, second, third]), 'locked');
      expect(refused).toEqual({ decision: 'locked', elementId: second, holderUserId: ben.userId });
      // Nothing was taken: Ben can still take the first and the third.
      decided(await acquireMany(ben, [first, third]), 'granted');
    });

    test('G3: a retried group request gets the same grants back, not new generations', async () => {
      const { ana, anas } = await lesson();
      const id = requestId('g');
      const granted = decided(await acquireMany(ana, anas, id), 'granted');
      const retried = decided(await acquireMany(ana, anas, id), 'already_applied');
      expect(retried.grants.map((g) => g.generation)).toEqual(granted.grants.map((g) => g.generation));
      // A new request of the same holder is a new grant, one generation up (like a single lock).
      const again = decided(await acquireMany(ana, anas), 'granted');
      expect(again.grants.map((g) => g.generation)).toEqual([2, 2, 2]);
    });

    test('G4: the single lock\'s rules hold for the group: own work only, pins, a muted pen, look-only', async () => {
      const own = await lesson('own');
      expect(await acquireMany(own.ana, [...own.anas, own.bens])).toEqual({ decision: 'not_own', elementId: own.bens });
      decided(await acquireMany(own.ana, own.anas), 'granted');

      const pinnedLesson = await lesson();
      const pinned = pinnedLesson.anas[1] as string;
      decided(await store.setElementPinned(pinnedLesson.teacher, { id: pinned, pinned: true }), 'applied');
      expect(await acquireMany(pinnedLesson.ana, pinnedLesson.anas)).toEqual({ decision: 'pinned', elementId: pinned });
      // The teacher may move pinned elements, as with a single lock.
      decided(await acquireMany(pinnedLesson.teacher, pinnedLesson.anas), 'granted');

      const muted = await lesson();
      decided(await store.setPenMuted(muted.teacher, { userId: muted.ana.userId, muted: true }), 'applied');
      expect((await acquireMany(muted.ana, muted.anas)).decision).toBe('pen_muted');

      const look = await lesson('look');
      expect((await acquireMany(look.ana, look.anas)).decision).toBe('look_only');
    });

    test('G5: an expired lock in the group is taken over; a deleted element refuses the group', async () => {
      const { ana, ben, anas, bens } = await lesson();
      const [first] = anas as [string];
      decided(await store.acquireLock(ben, { elementId: first, requestId: requestId('b'), firstTermMs: FIRST_TERM_MS }), 'granted');
      clock.advance(FIRST_TERM_MS + 1);
      const taken = decided(await acquireMany(ana, anas), 'granted');
      expect(taken.grants[0]?.generation).toBe(2);
      decided(await store.deleteElement(ben, { id: bens }), 'applied');
      expect(await acquireMany(ben, [bens])).toEqual({ decision: 'not_found', elementId: bens });
    });

    test('G6: a revoked member gets nothing', async () => {
      const { teacher, ana, anas } = await lesson();
      await store.revokeMember({ roomId: teacher.roomId, userId: ana.userId, by: teacher.userId, reason: null, requestId: null });
      expect((await acquireMany(ana, anas)).decision).toBe('not_a_member');
    });
  });
}
