import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { Database } from '../src/database.ts';
import { rows } from '../src/sql.ts';
import { createStore } from '../src/store.ts';
import { sweepExpiredLeases } from '../src/sweeper.ts';
import { CLOCK_START, LEASE_TTL_MS, RecordingLog, RecordingPublisher, errorText, leaseAt, onlyRoom, seatStudent, sqlState } from './fixtures.ts';
import { ScratchDatabase, testDatabaseUrl } from './postgresHarness.ts';

const target = testDatabaseUrl();
const roleSql = readFileSync(new URL('../sql/app-role.sql', import.meta.url), 'utf8');

if ('skip' in target) {
  describe(`app role (real Postgres): ${target.skip}`, () => {
    it.skip('runs when TEST_DATABASE_URL points at a Postgres server', () => {});
  });
} else {
  describe('app role from packages/db/sql/app-role.sql (real Postgres)', () => {
    const scratch = new ScratchDatabase(target.url);
    // Roles belong to the whole server: a name of its own keeps parallel runs apart.
    const role = `wb_app_test_${randomBytes(4).toString('hex')}`;
    let owner: Database;
    let app: Database;

    beforeAll(async () => {
      await scratch.create();
      owner = await scratch.open();
      await owner.db.execute(sql.raw(roleSql.replaceAll('wb_app', role)));
      // Twice: the script must be safe to rerun after a migration.
      await owner.db.execute(sql.raw(roleSql.replaceAll('wb_app', role)));
      app = await scratch.open({ user: role, migrate: false });
    });
    afterAll(async () => {
      await scratch.drop();
      await scratch.admin(`DROP ROLE IF EXISTS ${role}`);
    });

    it('runs every store operation the server needs as the app role', async () => {
      const clock = new FrozenClock(CLOCK_START);
      const store = createStore(app, clock);
      const seat = await seatStudent(store);
      await leaseAt(store, seat, 3);
      const other = await seatStudent(store, seat);
      await leaseAt(store, other, 1);
      clock.advance(LEASE_TTL_MS);
      const publisher = new RecordingPublisher();
      await sweepExpiredLeases(onlyRoom(store, seat.roomId), publisher.publish, new RecordingLog(), { batch: 10 });
      expect(publisher.events).toHaveLength(2);
      await store.openLease({ sessionId: seat.sessionId, ttlMs: LEASE_TTL_MS, requestId: null });
      await store.graceLeases(LEASE_TTL_MS);
      await store.revokeMember({ roomId: seat.roomId, userId: other.userId, by: seat.teacherId, reason: null, requestId: null });
      await store.closeSession({ sessionId: seat.sessionId, reason: 'signed_out', requestId: null });
      expect(await store.loadRoomSnapshot(seat.roomId)).not.toBeNull();
      await store.pruneRoomLog(1_000);
      expect((await store.listAttendance(seat.roomId)).map((a) => a.kind)).toEqual([
        'joined',
        'joined',
        'lease_expired',
        'lease_expired',
        'reconnected',
        'membership_revoked',
        'signed_out',
      ]);
    });

    it('runs the page operations (add, duplicate, rename, move, delete, restore, go to, pace, start, teach again) as the app role', async () => {
      const clock = new FrozenClock(CLOCK_START);
      const store = createStore(app, clock);
      const created = await store.createTeacher({ email: `pages-${Date.now()}@school.example`, passwordHash: 'stub', displayName: 'T' });
      if (created.decision !== 'created') throw new Error(created.decision);
      const room = await store.createRoom({ code: `P${Date.now()}`, title: 'Pages', teacherName: 'T', memberKeyHash: `k${Date.now()}`, teacherId: created.teacher.id, prepared: true });
      if (room.decision !== 'created') throw new Error(room.decision);
      const sessionId = randomUUID();
      await store.openSession({ id: sessionId, roomId: room.room.id, userId: room.member.userId, tokenHash: `t${Date.now()}`, ttlMs: 60_000 });
      const teacher = { roomId: room.room.id, sessionId, userId: room.member.userId };
      const two = randomUUID();
      const three = randomUUID();
      expect((await store.addPage(teacher, { pageId: two, afterPageId: null, background: 'grid' })).decision).toBe('applied');
      expect((await store.duplicatePage(teacher, { pageId: three, sourcePageId: two })).decision).toBe('applied');
      expect((await store.updatePage(teacher, { pageId: two, title: 'Two' })).decision).toBe('applied');
      expect((await store.movePage(teacher, { pageId: two, afterPageId: three })).decision).toBe('applied');
      expect((await store.deletePage(teacher, { pageId: two })).decision).toBe('applied');
      expect((await store.restorePage(teacher, { pageId: two })).decision).toBe('applied');
      expect((await store.gotoPage(teacher, { pageId: two })).decision).toBe('applied');
      expect((await store.setPacing(teacher, { pacing: 'free' })).decision).toBe('applied');
      expect((await store.startLesson(teacher)).decision).toBe('applied');
      const again = await store.createRoom({ code: `Q${Date.now()}`, title: 'Again', teacherName: 'T', memberKeyHash: `q${Date.now()}`, teacherId: created.teacher.id, copyPagesFrom: room.room.id });
      expect(again.decision).toBe('created');
      expect((await store.lessonPages(room.room.id))?.pages).toHaveLength(3);
    });

    it('runs the teacher-account, restore, archive and report operations as the app role', async () => {
      const clock = new FrozenClock(CLOCK_START);
      const store = createStore(app, clock);
      const created = await store.createTeacher({ email: `role-${Date.now()}@school.example`, passwordHash: 'stub', displayName: 'T' });
      if (created.decision !== 'created') throw new Error(created.decision);
      const teacherId = created.teacher.id;
      await store.openTeacherSession({ teacherId, tokenHash: `role-${Date.now()}`, ttlMs: 60_000 });
      const room = await store.createRoom({ code: `R${Date.now()}`, title: 'Role', teacherName: 'T', memberKeyHash: `k${Date.now()}`, teacherId });
      if (room.decision !== 'created') throw new Error(room.decision);
      const seat = await seatStudent(store, { roomId: room.room.id, teacherId: room.member.userId });
      await leaseAt(store, seat, 1);
      await store.revokeMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId, reason: null, requestId: null });
      expect(await store.restoreMember({ roomId: seat.roomId, userId: seat.userId, by: seat.teacherId })).toMatchObject({ decision: 'restored' });
      expect(await store.renameRoom({ teacherId, code: room.room.code, title: 'Renamed' })).toMatchObject({ decision: 'renamed' });
      expect(await store.archiveRoom({ teacherId, code: room.room.code })).toMatchObject({ decision: 'archived' });
      expect(await store.listTeacherRooms(teacherId)).toHaveLength(1);
      expect((await store.loadAttendanceReport(seat.roomId))?.students).toHaveLength(1);
    });

    it('runs the lobby operations as the app role (setting, admit, admit all, deny, withdraw)', async () => {
      const store = createStore(app, new FrozenClock(CLOCK_START));
      const room = await store.createRoom({ code: `L${Date.now()}`, title: 'Lobby', teacherName: 'T', memberKeyHash: `k${Date.now()}`, requireApproval: true });
      if (room.decision !== 'created') throw new Error(room.decision);
      const lobby = { roomId: room.room.id, teacherId: room.member.userId };
      const [a, b, c, d] = [await seatStudent(store, lobby), await seatStudent(store, lobby), await seatStudent(store, lobby), await seatStudent(store, lobby)];
      expect(await store.admitMember({ roomId: lobby.roomId, userId: a.userId, by: lobby.teacherId })).toMatchObject({ decision: 'admitted' });
      expect(await store.denyMember({ roomId: lobby.roomId, userId: b.userId, by: lobby.teacherId, reason: null })).toMatchObject({ decision: 'denied' });
      expect(await store.withdrawFromLobby(c.sessionId)).toMatchObject({ decision: 'withdrawn' });
      expect((await store.admitAllPending({ roomId: lobby.roomId, by: lobby.teacherId })).admitted).toEqual([d.userId]);
      expect(await store.setRequireApproval({ roomId: lobby.roomId, requireApproval: false })).toMatchObject({ decision: 'changed' });
    });

    it.each([
      ['UPDATE', sql`UPDATE attendance SET kind = 'signed_out'`],
      ['DELETE', sql`DELETE FROM attendance`],
      ['TRUNCATE', sql`TRUNCATE attendance`],
    ] as const)('I6: the app role is refused %s on attendance by privilege, before any trigger runs', async (_op, statement) => {
      const count = async () => (await rows<{ n: unknown }>(owner.db, sql`SELECT count(*) AS n FROM attendance`))[0]?.n;
      const before = await count();
      const error = await app.db.execute(statement).then(
        () => null,
        (e: unknown) => e,
      );
      expect(sqlState(error)).toBe('42501');
      expect(errorText(error)).toContain('permission denied for table attendance');
      expect(await count()).toBe(before);
    });

    it('runs the sign-in, admin and deletion operations as the app role: deletion only through the purge functions', async () => {
      const clock = new FrozenClock(CLOCK_START);
      const store = createStore(app, clock);
      const made = await store.signInWithIdentity({ provider: 'district', subject: `s-${Date.now()}`, email: `idp-${Date.now()}@school.example`, displayName: 'T', mayCreate: true });
      if (made.decision !== 'created') throw new Error(made.decision);
      const teacherId = made.teacher.id;
      expect(await store.setTeacherStatus({ teacherId, disabled: true })).toMatchObject({ decision: 'disabled' });
      expect(await store.setTeacherStatus({ teacherId, disabled: false })).toMatchObject({ decision: 'enabled' });
      await store.createPasswordReset({ teacherId, tokenHash: `r-${teacherId}`, ttlMs: 60_000 });
      expect(await store.consumePasswordReset({ tokenHash: `r-${teacherId}`, passwordHash: 'h' })).toMatchObject({ decision: 'reset' });
      expect((await store.listTeachers(1_000)).some((t) => t.id === teacherId)).toBe(true);

      const room = await store.createRoom({ code: `D${Date.now()}`, title: 'Gone', teacherName: 'T', memberKeyHash: `k${Date.now()}`, teacherId });
      if (room.decision !== 'created') throw new Error(room.decision);
      const seat = await seatStudent(store, { roomId: room.room.id, teacherId: room.member.userId });
      await leaseAt(store, seat, 1);
      const purged = await store.purgeLesson({ roomId: room.room.id, reason: 'deleted by its teacher', requestedBy: 'teacher', teacherId, unusedSince: null, wait: true });
      expect(purged?.attendanceRows).toBeGreaterThan(0);
      clock.advance(400 * 24 * 3_600_000);
      await store.sweepRetention({ days: 365, batch: 10 });
      expect(await store.deleteTeacherAccount({ teacherId, reason: 'deletion request' })).toMatchObject({ lessons: 0 });
    });

    it.each([
      ['attendance, even with the purge flag set', sql`SELECT set_config('wb.retention_purge', 'on', false); DELETE FROM attendance`, 'attendance'],
      ['the audit of deletions', sql`DELETE FROM retention_purges`, 'retention_purges'],
      ['teacher accounts', sql`DELETE FROM teachers`, 'teachers'],
      ['teacher sign-ins', sql`DELETE FROM teacher_sessions`, 'teacher_sessions'],
      ['provider identities', sql`DELETE FROM teacher_identities`, 'teacher_identities'],
      ['reset links', sql`DELETE FROM password_resets`, 'password_resets'],
    ] as const)('I6: outside the purge functions the app role may not delete %s', async (_what, statement, table) => {
      const error = await app.db.execute(statement).then(
        () => null,
        (e: unknown) => e,
      );
      expect(sqlState(error)).toBe('42501');
      expect(errorText(error)).toContain(`permission denied for table ${table}`);
    });

    it('I6: the app role cannot switch the append-only guard off or migrate', async () => {
      const error = await app.db.execute(sql`ALTER TABLE attendance DISABLE TRIGGER attendance_no_update_delete`).then(
        () => null,
        (e: unknown) => e,
      );
      expect(errorText(error)).toContain('must be owner of table attendance');
      await expect(scratch.open({ user: role })).rejects.toThrow();
    });
  });
}
