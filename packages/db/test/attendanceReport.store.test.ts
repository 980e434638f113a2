/**
 * The report reads attendance only (I6): it is computed from the append-only facts and does not
 * change when the presence and session stores are wiped. Runs on PGlite and real Postgres.
 */
import { sql } from 'drizzle-orm';
import { AttendanceReport } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, LEASE_TTL_MS, leaseAt, newRoom, requestId, seatStudent, storeDatabaseKinds } from './fixtures.ts';

const MIN = 60_000;

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`attendance report on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    test('I6: the report is unchanged after presence leases and sessions are wiped', async () => {
      const room = await newRoom(store);
      const signsOut = await seatStudent(store, room);
      const losesConnection = await seatStudent(store, room);
      const removed = await seatStudent(store, room);
      const stays = await seatStudent(store, room);
      for (const seat of [signsOut, losesConnection, removed, stays]) await leaseAt(store, seat, 1);

      clock.advance(10 * MIN);
      await store.closeSession({ sessionId: signsOut.sessionId, reason: 'signed_out', requestId: requestId('out') });
      await store.revokeMember({ roomId: room.roomId, userId: removed.userId, by: room.teacherId, reason: 'test', requestId: null });
      clock.advance(LEASE_TTL_MS + 1);
      const [expired] = (await store.findExpiredLeases(100)).filter((l) => l.sessionId === losesConnection.sessionId);
      // The others never renewed either, so only this one is swept: the rest stay "connected".
      expect((await store.deleteLeaseIfRevision(expired!)).won).toBe(true);

      const before = await store.loadAttendanceReport(room.roomId);
      // The fixture's room codes are longer than real ones, so only the students are checked here.
      expect(AttendanceReport.shape.students.parse(before!.students)).toEqual(before!.students);
      const endedBy = (userId: string) =>
        before!.students.find((s) => s.userId === userId)!.sessions.flatMap((s) => s.intervals.map((i) => i.endedBy));
      expect(endedBy(signsOut.userId)).toEqual(['signed_out']);
      expect(endedBy(losesConnection.userId)).toEqual(['lease_expired']);
      expect(endedBy(removed.userId)).toEqual(['membership_revoked']);
      expect(endedBy(stays.userId)).toEqual([null]);
      expect(before!.students.find((s) => s.userId === signsOut.userId)!.connectedMs).toBe(10 * MIN);

      await testDb.database.db.execute(sql`DELETE FROM presence_leases WHERE room_id = ${room.roomId}::uuid`);
      await testDb.database.db.execute(sql`DELETE FROM sessions WHERE room_id = ${room.roomId}::uuid`);
      expect(await store.listPresence(room.roomId)).toEqual([]);

      expect(await store.loadAttendanceReport(room.roomId)).toEqual(before);
    });

    test('an unknown room has no report', async () => {
      expect(await store.loadAttendanceReport('00000000-0000-4000-8000-000000000000')).toBeNull();
    });
  });
}
