/**
 * Deleting lessons and accounts (retention.ts, migration 0020): the retention schedule by a
 * shifted clock (I2), the cascade by lesson (every table with a `room_id`, one added later too),
 * the conditions checked under the lesson's lock (owner, still unused), exactly one deletion and
 * one audit fact per lesson when two nodes sweep at once, and an account deleted with its
 * lessons. PGlite and real Postgres (two independent pools on Postgres: two nodes).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { Database } from '../src/database.ts';
import type { StoredImage } from '../src/images.ts';
import { openDatabase } from '../src/database.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, leaseAt, newRoom, seatStudent, storeDatabaseKinds } from './fixtures.ts';

const DAY_MS = 24 * 60 * 60 * 1000;
const RETENTION_DAYS = 365;

function image(): StoredImage {
  const data = randomBytes(64);
  return { sha256: createHash('sha256').update(data).digest('hex'), mime: 'image/png', width: 4, height: 4, bytes: data.length, data };
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`deleting lessons and accounts on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    let store: Store;
    const clock = new FrozenClock(CLOCK_START);
    const n = async (query: ReturnType<typeof sql>, db: Database = testDb.database) => Number((await rows<{ n: unknown }>(db.db, query))[0]!.n);
    const auditsOf = (roomId: string) => n(sql`SELECT count(*) AS n FROM retention_purges WHERE room_id = ${roomId}::uuid AND scope = 'room'`);
    const exists = async (roomId: string) => (await n(sql`SELECT count(*) AS n FROM rooms WHERE id = ${roomId}::uuid`)) === 1;

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, clock);
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    /** A lesson with a student who joined (an attendance fact) at the clock's now. */
    async function usedLesson() {
      const seat = await seatStudent(store);
      await leaseAt(store, seat, 1);
      return seat;
    }

    test('R1: by a shifted clock, a lesson is deleted once it has been unused for the retention period, and not a day before; 0 keeps everything', async () => {
      clock.set(CLOCK_START);
      const idle = await usedLesson();
      const reused = await usedLesson();
      clock.advance(200 * DAY_MS);
      // Used again 200 days in: its term starts again from here.
      await seatStudent(store, reused).then((seat) => leaseAt(store, seat, 1));

      clock.set(new Date(CLOCK_START.getTime() + RETENTION_DAYS * DAY_MS - 60_000));
      await store.sweepRetention({ days: RETENTION_DAYS, batch: 100 });
      expect([await exists(idle.roomId), await exists(reused.roomId)]).toEqual([true, true]);

      clock.set(new Date(CLOCK_START.getTime() + RETENTION_DAYS * DAY_MS + 60_000));
      expect(await store.sweepRetention({ days: 0, batch: 100 })).toEqual({ found: 0, deleted: 0 });
      expect(await exists(idle.roomId)).toBe(true);
      await store.sweepRetention({ days: RETENTION_DAYS, batch: 100 });
      expect([await exists(idle.roomId), await exists(reused.roomId)]).toEqual([false, true]);
      expect(await auditsOf(idle.roomId)).toBe(1);
      const [fact] = await rows<Record<string, unknown>>(testDb.database.db, sql`SELECT * FROM retention_purges WHERE room_id = ${idle.roomId}::uuid`);
      expect(fact).toMatchObject({ scope: 'room', requested_by: 'retention', reason: `retention: unused for ${RETENTION_DAYS} days`, user_id: null });
      expect(Number(fact!.attendance_rows)).toBeGreaterThan(0);

      clock.advance(200 * DAY_MS);
      await store.sweepRetention({ days: RETENTION_DAYS, batch: 100 });
      expect(await exists(reused.roomId)).toBe(false);
      // A second pass finds nothing more to do and appends no second fact.
      await store.sweepRetention({ days: RETENTION_DAYS, batch: 100 });
      expect([await auditsOf(idle.roomId), await auditsOf(reused.roomId)]).toEqual([1, 1]);
    });

    test('R2: a lesson is deleted whole: boards, private boards, images, events, attendance, and a table added later', async () => {
      // A later table (a poll and its answers, say): it joins the purge by having a room_id,
      // and a foreign key between two such tables needs no ordering.
      await testDb.database.db.execute(sql`CREATE TABLE IF NOT EXISTS test_later_polls (id uuid PRIMARY KEY, room_id uuid NOT NULL REFERENCES rooms(id))`);
      await testDb.database.db.execute(
        sql`CREATE TABLE IF NOT EXISTS test_later_answers (id uuid PRIMARY KEY, poll_id uuid NOT NULL REFERENCES test_later_polls(id), room_id uuid NOT NULL)`,
      );
      const room = await newRoom(store);
      const seat = await seatStudent(store, room);
      await leaseAt(store, seat, 1);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: DAY_MS });
      const teacher = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const own = image();
      expect((await store.putImage(teacher, own, { maxImages: 10, maxBytes: 1_000_000 })).decision).toBe('stored');
      await store.createElement(teacher, { id: randomUUID(), shape: { kind: 'rect', x: 0, y: 0, w: 10, h: 10, color: '#000000' } as never });
      const started = await store.startActivity(teacher, { activityId: randomUUID(), title: 'Work', start: { kind: 'blank' } });
      expect(started.decision).toBe('applied');
      const poll = randomUUID();
      await testDb.database.db.execute(sql`INSERT INTO test_later_polls VALUES (${poll}::uuid, ${room.roomId}::uuid)`);
      await testDb.database.db.execute(sql`INSERT INTO test_later_answers VALUES (${randomUUID()}::uuid, ${poll}::uuid, ${room.roomId}::uuid)`);
      // The lesson's quick poll and a student's answer: the answers have no room_id of their own.
      const pollId = randomUUID();
      expect((await store.openPoll(teacher, { pollId, question: 'Ready?', kind: 'yesno' })).decision).toBe('applied');
      expect((await store.answerPoll(seat, { pollId, choice: 0 })).decision).toBe('applied');
      const boardIds = (await rows<{ id: string }>(testDb.database.db, sql`SELECT id FROM rooms WHERE parent_id = ${room.roomId}::uuid`)).map((r) => r.id);
      expect(boardIds.length).toBe(1);

      const purged = await store.purgeLesson({ roomId: room.roomId, reason: 'deleted by its teacher', requestedBy: 'teacher', teacherId: null, unusedSince: null, wait: true });
      expect(purged?.rows).toBeGreaterThan(10);
      const tables = await rows<{ table_name: string }>(
        testDb.database.db,
        sql`SELECT table_name FROM information_schema.columns WHERE table_schema = 'public' AND column_name = 'room_id' AND table_name <> 'retention_purges'`,
      );
      expect(tables.map((t) => t.table_name)).toEqual(expect.arrayContaining(['attendance', 'elements', 'room_events', 'memberships', 'sessions', 'lesson_images', 'activities', 'test_later_answers']));
      for (const { table_name } of tables) {
        for (const id of [room.roomId, ...boardIds]) expect([table_name, await n(sql`SELECT count(*) AS n FROM ${sql.identifier(table_name)} WHERE room_id = ${id}::uuid`)]).toEqual([table_name, 0]);
      }
      expect(await n(sql`SELECT count(*) AS n FROM rooms WHERE id = ${room.roomId}::uuid OR parent_id = ${room.roomId}::uuid`)).toBe(0);
      expect(await n(sql`SELECT count(*) AS n FROM image_blobs WHERE sha256 = ${own.sha256}`)).toBe(0);
      expect(await n(sql`SELECT count(*) AS n FROM poll_answers WHERE poll_id = ${pollId}::uuid`)).toBe(0);
      // The audit fact keeps ids and counts, not the lesson's title, names or content.
      const [fact] = await rows<Record<string, unknown>>(testDb.database.db, sql`SELECT * FROM retention_purges WHERE id = ${purged!.auditId}`);
      expect(fact).toMatchObject({ scope: 'room', room_id: room.roomId, requested_by: 'teacher', reason: 'deleted by its teacher' });
      expect(JSON.stringify(fact)).not.toMatch(/Contract test|Student|Teacher/);
    });

    test('R3: the conditions hold under the lesson\'s lock: another teacher\'s lesson and a lesson used since the cutoff are kept', async () => {
      const mine = await store.createTeacher({ email: `${randomUUID()}@school.example`, passwordHash: 'h', displayName: 'A' });
      if (mine.decision !== 'created') throw new Error(mine.decision);
      const lesson = await usedLesson();
      expect(await store.purgeLesson({ roomId: lesson.roomId, reason: 'x', requestedBy: 'teacher', teacherId: mine.teacher.id, unusedSince: null, wait: true })).toBeNull();
      const cutoff = sql`${new Date(clock.current.getTime() - 60_000).toISOString()}::timestamptz`;
      expect(await store.purgeLesson({ roomId: lesson.roomId, reason: 'x', requestedBy: 'retention', teacherId: null, unusedSince: cutoff, wait: false })).toBeNull();
      expect([await exists(lesson.roomId), await auditsOf(lesson.roomId)]).toEqual([true, 0]);
    });

    test('R4: an account is deleted with every lesson it owns, one audit fact each and one for the account, and no other lesson is touched', async () => {
      const made = await store.createTeacher({ email: `gone-${randomUUID()}@school.example`, passwordHash: 'h', displayName: 'Ms Gone' });
      if (made.decision !== 'created') throw new Error(made.decision);
      const teacherId = made.teacher.id;
      await store.openTeacherSession({ teacherId, tokenHash: randomUUID(), ttlMs: DAY_MS });
      await store.signInWithIdentity({ provider: 'district', subject: randomUUID(), email: made.teacher.email, displayName: 'x', mayCreate: false });
      await store.createPasswordReset({ teacherId, tokenHash: randomUUID(), ttlMs: DAY_MS });
      const lessons: string[] = [];
      for (let i = 0; i < 2; i++) {
        const created = await store.createRoom({ code: randomBytes(5).toString('hex').toUpperCase(), title: 'Secret title', teacherName: 'Ms Gone', memberKeyHash: randomUUID(), teacherId });
        if (created.decision !== 'created') throw new Error(created.decision);
        await seatStudent(store, { roomId: created.room.id, teacherId: created.member.userId }).then((seat) => leaseAt(store, seat, 1));
        lessons.push(created.room.id);
      }
      const other = await usedLesson();
      const deleted = await store.deleteTeacherAccount({ teacherId, reason: 'deletion request' });
      expect(deleted).toMatchObject({ lessons: 2 });
      for (const id of lessons) expect([await exists(id), await auditsOf(id)]).toEqual([false, 1]);
      expect(await exists(other.roomId)).toBe(true);
      for (const table of ['teachers', 'teacher_sessions', 'teacher_identities', 'password_resets']) {
        const column = table === 'teachers' ? 'id' : 'teacher_id';
        expect([table, await n(sql`SELECT count(*) AS n FROM ${sql.identifier(table)} WHERE ${sql.identifier(column)} = ${teacherId}::uuid`)]).toEqual([table, 0]);
      }
      const facts = await rows<Record<string, unknown>>(testDb.database.db, sql`SELECT * FROM retention_purges WHERE teacher_id = ${teacherId}::uuid ORDER BY id`);
      expect(facts.map((f) => [f.scope, f.requested_by])).toEqual([['room', 'admin'], ['room', 'admin'], ['teacher', 'admin']]);
      expect(JSON.stringify(facts)).not.toMatch(/gone-|Ms Gone|Secret title/);
      expect(await store.deleteTeacherAccount({ teacherId, reason: 'again' })).toBeNull();
    });

    test('R5: two nodes sweeping at once delete each due lesson exactly once, with exactly one audit fact each', async () => {
      clock.set(CLOCK_START);
      const due: string[] = [];
      for (let i = 0; i < 12; i++) due.push((await usedLesson()).roomId);
      clock.set(new Date(CLOCK_START.getTime() + (RETENTION_DAYS + 1) * DAY_MS));
      // On Postgres a second pool is a second node; PGlite has one connection, so it serialises them.
      const second = testDb.url ? await openDatabase({ kind: 'postgres', url: testDb.url, poolSize: 4, migrate: false }) : testDb.database;
      try {
        const nodes = [store, createStore(second, clock)];
        const passes = await Promise.all(nodes.flatMap((node) => [node.sweepRetention({ days: RETENTION_DAYS, batch: 100 }), node.sweepRetention({ days: RETENTION_DAYS, batch: 100 })]));
        for (const id of due) expect([await exists(id), await auditsOf(id)]).toEqual([false, 1]);
        const deleted = passes.reduce((sum, p) => sum + p.deleted, 0);
        expect(deleted).toBe(await n(sql`SELECT count(*) AS n FROM retention_purges WHERE requested_by = 'retention' AND room_id = ANY (${`{${due.join(',')}}`}::uuid[])`));
      } finally {
        if (second !== testDb.database) await second.close();
      }
    });
  });
}
