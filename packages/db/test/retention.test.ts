import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { purgeMember, purgeRoom } from '../src/retention.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, postgresUnavailableReason, type TestDatabase, type TestDatabaseKind } from '../src/testing.ts';
import { CLOCK_START, errorText, leaseAt, seatStudent } from './fixtures.ts';

const kinds: { kind: TestDatabaseKind; skip: string | null }[] = [
  { kind: 'pglite', skip: null },
  { kind: 'postgres', skip: postgresUnavailableReason() },
];

for (const { kind, skip } of kinds) {
  describe.skipIf(skip !== null)(`retention purge on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    let store: Store;
    const n = async (query: ReturnType<typeof sql>) => Number((await rows<{ n: unknown }>(testDb.database.db, query))[0]!.n);
    const refused = (query: ReturnType<typeof sql>) =>
      testDb.database.db.execute(query).then(
        () => 'allowed',
        (e: unknown) => errorText(e),
      );

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, new FrozenClock(CLOCK_START));
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    test('I6: a member purge removes their attendance and membership, keeps the others, and leaves an audit fact', async () => {
      const a = await seatStudent(store);
      const b = await seatStudent(store, a);
      await leaseAt(store, a, 1);
      await leaseAt(store, b, 1);
      await store.closeSession({ sessionId: a.sessionId, reason: 'signed_out', requestId: null });
      const factsOf = (userId: string) => n(sql`SELECT count(*) AS n FROM attendance WHERE room_id = ${a.roomId} AND user_id = ${userId}`);
      expect(await factsOf(a.userId)).toBeGreaterThan(0);
      const bBefore = await factsOf(b.userId);

      // Outside the purge, even the owner cannot delete a fact: the guard holds.
      expect(await refused(sql`DELETE FROM attendance WHERE user_id = ${a.userId}`)).toMatch(/append-only/);

      const result = await purgeMember(testDb.database, a.roomId, a.userId, 'deletion request #42');
      expect(result.attendanceRows).toBeGreaterThan(0);
      expect(await factsOf(a.userId)).toBe(0);
      expect(await factsOf(b.userId)).toBe(bBefore);
      expect(await n(sql`SELECT count(*) AS n FROM memberships WHERE user_id = ${a.userId}`)).toBe(0);
      expect(await n(sql`SELECT count(*) AS n FROM sessions WHERE user_id = ${a.userId}`)).toBe(0);
      expect(await n(sql`SELECT count(*) AS n FROM memberships WHERE user_id = ${b.userId}`)).toBe(1);
      const [auditFact] = await rows<Record<string, unknown>>(testDb.database.db, sql`SELECT * FROM retention_purges WHERE id = ${result.auditId}`);
      expect(auditFact).toMatchObject({ scope: 'member', room_id: a.roomId, user_id: a.userId, reason: 'deletion request #42', attendance_rows: result.attendanceRows });

      // The path closed with the purge's transaction: the guard is back.
      expect(await refused(sql`DELETE FROM attendance WHERE user_id = ${b.userId}`)).toMatch(/append-only/);
      expect(await refused(sql`UPDATE attendance SET kind = 'joined'`)).toMatch(/append-only/);
    });

    test('a lesson purge removes the room and everything in it, attendance included, and leaves an audit fact', async () => {
      const a = await seatStudent(store);
      await leaseAt(store, a, 2);
      const result = await purgeRoom(testDb.database, a.roomId, 'retention: 1 year after the lesson');
      expect(result.attendanceRows).toBeGreaterThan(0);
      for (const table of ['attendance', 'memberships', 'sessions', 'presence_leases', 'room_events', 'elements']) {
        expect(await n(sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE room_id = ${a.roomId}`)).toBe(0);
      }
      expect(await n(sql`SELECT count(*) AS n FROM rooms WHERE id = ${a.roomId}`)).toBe(0);
      expect(await n(sql`SELECT count(*) AS n FROM retention_purges WHERE room_id = ${a.roomId} AND scope = 'room'`)).toBe(1);
    });

    test('the audit of purges is append-only itself', async () => {
      expect(await refused(sql`DELETE FROM retention_purges`)).toMatch(/append-only/);
      expect(await refused(sql`UPDATE retention_purges SET reason = 'x'`)).toMatch(/append-only/);
      expect(await refused(sql`TRUNCATE retention_purges`)).toMatch(/append-only/);
    });
  });
}
