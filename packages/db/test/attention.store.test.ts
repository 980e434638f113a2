/**
 * The teacher's attention kit in the store (issue 21), as contract tests on PGlite and real
 * Postgres: the lesson's cursor visibility and the students' laser are lesson settings, changed
 * only by the teacher inside the same conditional write as the edit policy. Raised hands are
 * lesson state on the membership: up until lowered or until the student leaves.
 */
import { randomUUID } from 'node:crypto';
import { raisedHandQueue } from '@wb/protocol';
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
      expect((await store.findRoomById(room.roomId))?.settings).toEqual({ editPolicy: 'own', cursorVisibility: 'teacher', laserAllowed: false, paper: 'dots' });
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
      expect(changed.room.settings).toEqual({ editPolicy: 'own', cursorVisibility: 'none', laserAllowed: true, paper: 'dots' });
      expect(changed.events.map((e) => e.kind)).toEqual(['room.updated']);
      expect((await store.setLessonSettings(teacher, { cursorVisibility: 'none' })).decision).toBe('already_applied');
      expect(await store.readDrawRights(room.roomId)).toMatchObject({ cursorVisibility: 'none', laserAllowed: true });
    });

    const handOf = async (roomId: string, userId: string) => (await store.listMembers(roomId)).find((m) => m.userId === userId)?.handRaisedAt ?? null;

    test('H1: a student raises their hand once, at the database clock; raising it again changes nothing', async () => {
      const { room, student } = await lesson();
      const raised = await store.setHand(student, { userId: student.userId, raised: true });
      if (raised.decision !== 'applied') throw new Error(raised.decision);
      expect(raised.member.handRaisedAt).toBe(clock.current.toISOString());
      expect(raised.events.map((e) => [e.kind, e.payload])).toEqual([['member.hand', { userId: student.userId, raisedAt: clock.current.toISOString(), by: student.userId }]]);
      clock.advance(5_000);
      expect((await store.setHand(student, { userId: student.userId, raised: true })).decision).toBe('already_applied');
      expect(await handOf(room.roomId, student.userId)).toBe(raised.member.handRaisedAt);
    });

    test('H2: the queue is in raising order; the teacher lowers one, then all; a student lowers only their own; the teacher raises none', async () => {
      const { room, teacher, student } = await lesson();
      const seat = await seatStudent(store, room);
      const other = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      const third = await seatStudent(store, room);
      const last = { roomId: room.roomId, sessionId: third.sessionId, userId: third.userId };
      for (const who of [other, student, last]) {
        expect((await store.setHand(who, { userId: who.userId, raised: true })).decision).toBe('applied');
        clock.advance(1_000);
      }
      expect(raisedHandQueue(await store.listMembers(room.roomId)).map((m) => m.userId)).toEqual([other.userId, student.userId, last.userId]);
      expect((await store.setHand(student, { userId: other.userId, raised: false })).decision).toBe('forbidden');
      expect((await store.setHand(teacher, { userId: teacher.userId, raised: true })).decision).toBe('forbidden');
      expect((await store.setHand(teacher, { userId: other.userId, raised: false })).decision).toBe('applied');
      expect((await store.setHand(student, { userId: student.userId, raised: false })).decision).toBe('applied');
      expect((await store.lowerAllHands(student)).decision).toBe('forbidden');
      const all = await store.lowerAllHands(teacher);
      if (all.decision !== 'applied') throw new Error(all.decision);
      expect(all.events.map((e) => e.kind === 'member.hand' && [e.payload.userId, e.payload.raisedAt])).toEqual([[last.userId, null]]);
      expect(raisedHandQueue(await store.listMembers(room.roomId))).toEqual([]);
    });

    test('H3: a raised hand survives a lost connection and an expired lease, and goes down when the student signs out', async () => {
      const { room, student } = await lesson();
      await store.setHand(student, { userId: student.userId, raised: true });
      await store.openLease({ sessionId: student.sessionId, ttlMs: 9_000, requestId: `open-${randomUUID()}` });
      clock.advance(10_000);
      const expired = (await store.findExpiredLeases(100)).filter((l) => l.sessionId === student.sessionId);
      for (const lease of expired) await store.deleteLeaseIfRevision(lease);
      expect(await handOf(room.roomId, student.userId)).not.toBeNull();
      const closed = await store.closeSession({ sessionId: student.sessionId, reason: 'signed_out', requestId: null });
      if (closed.decision !== 'closed') throw new Error(closed.decision);
      expect(closed.events.filter((e) => e.kind === 'member.hand').map((e) => e.payload)).toEqual([{ userId: student.userId, raisedAt: null, by: student.userId }]);
      expect(await handOf(room.roomId, student.userId)).toBeNull();
    });

    test('H3: a removed student\'s hand goes down in the same transaction as the removal', async () => {
      const { room, teacher, student } = await lesson();
      await store.setHand(student, { userId: student.userId, raised: true });
      const revoked = await store.revokeMember({ roomId: room.roomId, userId: student.userId, by: teacher.userId, reason: null, requestId: null });
      if (revoked.decision !== 'revoked') throw new Error(revoked.decision);
      expect(revoked.events.map((e) => e.kind)).toContain('member.hand');
      expect(await handOf(room.roomId, student.userId)).toBeNull();
    });
  });
}
