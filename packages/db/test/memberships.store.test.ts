/**
 * The membership lifecycle's way back: revoked -> active by `restoreMember`, conditional and
 * idempotent (I3). Runs on PGlite and real Postgres.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, LEASE_TTL_MS, SESSION_TTL_MS, leaseAt, roomRevision, seatStudent, storeDatabaseKinds } from './fixtures.ts';

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`memberships on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    const statusOf = async (roomId: string, userId: string) =>
      (await store.listMembers(roomId)).find((m) => m.userId === userId)?.status;

    test('I3: restoreMember makes only a revoked membership active, once; a second restore changes nothing', async () => {
      const seat = await seatStudent(store);
      await leaseAt(store, seat, 1);
      await store.revokeMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId, reason: null, requestId: null });
      const input = { roomId: seat.roomId, userId: seat.userId, by: seat.teacherId };

      const first = await store.restoreMember(input);
      const revision = await roomRevision(testDb.database, seat.roomId);
      expect(first).toEqual({
        decision: 'restored',
        events: [
          {
            roomId: seat.roomId,
            revision,
            eventId: `member.restored:${seat.userId}:${revision}`,
            kind: 'member.restored',
            payload: { userId: seat.userId, by: seat.teacherId },
          },
        ],
      });
      expect(await statusOf(seat.roomId, seat.userId)).toBe('active');

      expect(await store.restoreMember(input)).toEqual({ decision: 'not_revoked' });
      expect(await store.restoreMember({ ...input, userId: seat.teacherId })).toEqual({ decision: 'not_revoked' });
      expect(await store.restoreMember({ ...input, userId: '00000000-0000-4000-8000-000000000000' })).toEqual({
        decision: 'not_a_member',
      });
      expect(await roomRevision(testDb.database, seat.roomId)).toBe(revision);
    });

    test('a restored member is the same member again, but the sessions the revocation closed stay closed', async () => {
      const seat = await seatStudent(store);
      await store.revokeMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId, reason: null, requestId: null });
      await store.restoreMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId });
      expect(await store.openLease({ sessionId: seat.sessionId, ttlMs: LEASE_TTL_MS, requestId: null })).toEqual({
        decision: 'not_a_member',
      });
      // A fresh session for the same member works.
      const sessionId = crypto.randomUUID();
      await store.openSession({ id: sessionId, roomId: seat.roomId, userId: seat.userId, tokenHash: `hash-${sessionId}`, ttlMs: SESSION_TTL_MS });
      expect(await store.openLease({ sessionId, ttlMs: LEASE_TTL_MS, requestId: null })).toMatchObject({ decision: 'opened' });
    });

    test('revoke, restore, revoke, restore: each step is its own event and the membership ends where the last one left it', async () => {
      const seat = await seatStudent(store);
      const ids: string[] = [];
      for (let round = 0; round < 2; round++) {
        const revoked = await store.revokeMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId, reason: null, requestId: null });
        if (revoked.decision !== 'revoked') throw new Error(revoked.decision);
        ids.push(...revoked.events.map((e) => e.eventId));
        expect(await statusOf(seat.roomId, seat.userId)).toBe('revoked');
        const restored = await store.restoreMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId });
        if (restored.decision !== 'restored') throw new Error(restored.decision);
        ids.push(...restored.events.map((e) => e.eventId));
      }
      expect(new Set(ids).size).toBe(4);
      expect(await statusOf(seat.roomId, seat.userId)).toBe('active');
    });
  });
}
