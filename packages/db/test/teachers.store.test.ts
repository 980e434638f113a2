/**
 * Teacher accounts, their sessions, and the room lifecycle they own (rename, archive). Each
 * transition is conditional (I3). Runs on PGlite and real Postgres.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, LEASE_TTL_MS, SESSION_TTL_MS, roomRevision, storeDatabaseKinds } from './fixtures.ts';

const HOUR = 3_600_000;
const unique = () => randomBytes(6).toString('hex');
/** Room codes in these tests only need to be unique; the 6-character format is the server's concern. */
const code = () => unique().toUpperCase();

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`teacher accounts on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    async function newTeacher(name = 'Ms Rivera') {
      const created = await store.createTeacher({ email: `${unique()}@School.example`, passwordHash: '$argon2id$stub', displayName: name });
      if (created.decision !== 'created') throw new Error(created.decision);
      return created.teacher;
    }

    async function roomOf(teacherId: string | null, title = 'Lesson') {
      const created = await store.createRoom({ code: code(), title, teacherName: 'Ms Rivera', memberKeyHash: unique(), teacherId });
      if (created.decision !== 'created') throw new Error(created.decision);
      return created;
    }

    test('an email is one account however it is typed; the address is stored lowercased', async () => {
      const email = `${unique()}@school.example`;
      const first = await store.createTeacher({ email, passwordHash: 'h1', displayName: 'A' });
      expect(first).toMatchObject({ decision: 'created', teacher: { email } });
      expect(await store.createTeacher({ email: email.toUpperCase(), passwordHash: 'h2', displayName: 'B' })).toEqual({
        decision: 'email_taken',
      });
      expect(await store.findTeacherCredentials(email.toUpperCase())).toMatchObject({ passwordHash: 'h1', teacher: { displayName: 'A' } });
      expect(await store.findTeacherCredentials(`nobody-${email}`)).toBeNull();
    });

    test('I3: a teacher session is ok until signed out or expired; signing out twice changes nothing', async () => {
      const teacher = await newTeacher();
      const tokenHash = unique();
      await store.openTeacherSession({ teacherId: teacher.id, tokenHash, ttlMs: 8 * HOUR });
      expect(await store.authenticateTeacherSession(tokenHash)).toMatchObject({ decision: 'ok', teacher });
      expect(await store.closeTeacherSession(tokenHash)).toEqual({ decision: 'closed' });
      expect(await store.closeTeacherSession(tokenHash)).toEqual({ decision: 'already_closed' });
      expect(await store.authenticateTeacherSession(tokenHash)).toEqual({ decision: 'closed' });
      expect(await store.authenticateTeacherSession('no-such-hash')).toEqual({ decision: 'unknown' });

      const later = unique();
      await store.openTeacherSession({ teacherId: teacher.id, tokenHash: later, ttlMs: HOUR });
      clock.advance(HOUR);
      expect(await store.authenticateTeacherSession(later)).toEqual({ decision: 'expired' });
    });

    test('a teacher sees their own rooms, newest first, and nobody else’s', async () => {
      const mine = await newTeacher('Mine');
      const theirs = await newTeacher('Theirs');
      const first = await roomOf(mine.id, 'First');
      clock.advance(1_000);
      const second = await roomOf(mine.id, 'Second');
      await roomOf(theirs.id, 'Not mine');
      await roomOf(null, 'Anonymous');
      expect((await store.listTeacherRooms(mine.id)).map((r) => [r.code, r.title])).toEqual([
        [second.room.code, 'Second'],
        [first.room.code, 'First'],
      ]);
      expect(await store.findTeacherRoom(theirs.id, first.room.code)).toBeNull();
    });

    test('every open lesson of an account is listed page by page, past the most recent ones the list shows; no archived one, nobody else\u2019s', async () => {
      const owner = await newTeacher('Many lessons');
      const codes: string[] = [];
      for (let i = 0; i < 7; i++) codes.push((await roomOf(owner.id, `Lesson ${i}`)).room.code);
      const archived = codes.pop()!;
      expect(await store.archiveRoom({ teacherId: owner.id, code: archived })).toMatchObject({ decision: 'archived' });
      await roomOf((await newTeacher('Other')).id, 'Not hers');
      const seen: string[] = [];
      let pages = 0;
      for (let afterId: string | null = null; ; pages++) {
        const page = await store.listOpenTeacherLessons(owner.id, { afterId, limit: 2 });
        seen.push(...page.map((l) => l.code));
        if (page.length < 2) break;
        afterId = page.at(-1)!.id;
      }
      expect(pages).toBe(3);
      expect(seen.sort()).toEqual([...codes].sort());
    });

    test('I3: rename is conditional on ownership and on a new title; it publishes room.updated', async () => {
      const owner = await newTeacher();
      const other = await newTeacher('Other');
      const { room } = await roomOf(owner.id, 'Fractions');
      expect(await store.renameRoom({ teacherId: other.id, code: room.code, title: 'Mine now' })).toEqual({ decision: 'not_found' });
      const renamed = await store.renameRoom({ teacherId: owner.id, code: room.code, title: 'Fractions II' });
      expect(renamed).toMatchObject({
        decision: 'renamed',
        room: { title: 'Fractions II' },
        events: [{ kind: 'room.updated', payload: { title: 'Fractions II', status: 'open' } }],
      });
      const revision = await roomRevision(testDb.database, room.id);
      expect(await store.renameRoom({ teacherId: owner.id, code: room.code, title: 'Fractions II' })).toMatchObject({
        decision: 'unchanged',
      });
      expect(await roomRevision(testDb.database, room.id)).toBe(revision);
    });

    test('I3: archive closes every open session as session_closed, refuses joins and handshakes, and happens once', async () => {
      const owner = await newTeacher();
      const { room } = await roomOf(owner.id);
      const joined = await store.joinRoom({ roomId: room.id, displayName: 'Ana', memberKeyHash: unique(), role: 'student' });
      if (joined.decision !== 'joined') throw new Error(joined.decision);
      const sessionId = randomUUID();
      const tokenHash = unique();
      await store.openSession({ id: sessionId, roomId: room.id, userId: joined.member.userId, tokenHash, ttlMs: SESSION_TTL_MS });
      await store.openLease({ sessionId, ttlMs: LEASE_TTL_MS, requestId: null });

      expect(await store.archiveRoom({ teacherId: randomUUID(), code: room.code })).toEqual({ decision: 'not_found' });
      const archived = await store.archiveRoom({ teacherId: owner.id, code: room.code });
      if (archived.decision !== 'archived') throw new Error(archived.decision);
      expect(archived.events.map((e) => e.kind)).toEqual(['room.updated', 'session.closed']);
      expect(archived.events[1]).toMatchObject({ payload: { sessionId, reason: 'server' } });
      expect(await store.listPresence(room.id)).toEqual([]);
      expect((await store.listAttendance(room.id)).map((a) => a.kind)).toEqual(['joined', 'session_closed']);

      expect(await store.authenticateSession(tokenHash)).toEqual({ decision: 'archived' });
      expect(await store.joinRoom({ roomId: room.id, displayName: 'Bo', memberKeyHash: unique(), role: 'student' })).toEqual({
        decision: 'archived',
      });
      const revision = await roomRevision(testDb.database, room.id);
      expect(await store.archiveRoom({ teacherId: owner.id, code: room.code })).toMatchObject({ decision: 'already_archived' });
      expect(await roomRevision(testDb.database, room.id)).toBe(revision);
      // The lesson's record stays readable.
      const report = await store.loadAttendanceReport(room.id);
      expect(report?.students[0]?.sessions[0]?.intervals[0]?.endedBy).toBe('session_closed');
    });
  });
}
