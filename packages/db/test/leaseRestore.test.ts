import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { SWEEPER_LOCK_ID, type Database } from '../src/database.ts';
import { createStore } from '../src/store.ts';
import { Sweeper } from '../src/sweeper.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, LEASE_TTL_MS, RecordingLog, RecordingPublisher, leaseAt, requestId, seatStudent, storeDatabaseKinds } from './fixtures.ts';

/** What a database crash does to presence: the UNLOGGED lease table comes back empty. */
async function crashLeaseTable(database: Database): Promise<void> {
  await database.db.execute(sql`DELETE FROM presence_leases`);
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`lost leases after a database crash on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
    });
    afterAll(() => testDb?.drop());

    it('I6/I8: a student present when the lease table was lost, who never comes back, is expired once: no ghost', async () => {
      const clock = new FrozenClock(CLOCK_START);
      const store = createStore(testDb.database, clock);
      const gone = await seatStudent(store);
      const back = await seatStudent(store, { roomId: gone.roomId, teacherId: gone.teacherId });
      const left = await seatStudent(store, { roomId: gone.roomId, teacherId: gone.teacherId });
      await leaseAt(store, gone, 5);
      await leaseAt(store, back, 3);
      await leaseAt(store, left, 1);
      await store.closeSession({ sessionId: left.sessionId, reason: 'signed_out', requestId: requestId('leave') });

      await crashLeaseTable(testDb.database);
      const publisher = new RecordingPublisher();
      const sweeper = new Sweeper(store, testDb.database.leaderLock(SWEEPER_LOCK_ID), publisher.publish, new RecordingLog(), {
        intervalMs: 1_000,
        leaseTtlMs: LEASE_TTL_MS,
        lockTtlMs: 5_000,
        batch: 100,
        eventLogKeep: 1_000,
        pruneEvery: 1_000,
      });
      try {
        await sweeper.pass(); // the first pass after a start: grace, and the lost leases come back
        const presence = await store.listPresence(gone.roomId);
        expect(presence.map((p) => p.sessionId).sort()).toEqual([gone.sessionId, back.sessionId].sort());
        expect(presence.every((p) => !p.connected)).toBe(true);

        // One client returns within the term and resumes; the other never does.
        const resumed = await store.openLease({ sessionId: back.sessionId, ttlMs: LEASE_TTL_MS, requestId: requestId('back') });
        expect(resumed.decision).toBe('resumed');
        clock.advance(LEASE_TTL_MS + 1);
        await store.renewLeases(
          [{ sessionId: back.sessionId, revision: resumed.decision === 'resumed' ? resumed.lease.revision + 1 : 0, requestId: requestId('r') }],
          LEASE_TTL_MS,
        );
        await sweeper.pass();
        await sweeper.pass();
        const expired = publisher.inRoom(gone.roomId).filter((e) => e.kind === 'presence.expired');
        expect(expired.map((e) => (e.kind === 'presence.expired' ? e.payload.sessionId : null))).toEqual([gone.sessionId]);
        const facts = await store.listAttendance(gone.roomId);
        expect(facts.filter((f) => f.sessionId === gone.sessionId).map((f) => f.kind)).toEqual(['joined', 'lease_expired']);
        expect(facts.filter((f) => f.sessionId === left.sessionId).map((f) => f.kind)).toEqual(['joined', 'signed_out']);
        // I4: the restored lease's revision is above everything the session ever published.
        const expiry = expired[0]!;
        expect(expiry.kind === 'presence.expired' && expiry.payload.revision).toBeGreaterThan(1);
      } finally {
        await sweeper.stop();
      }
    });
  });
}
