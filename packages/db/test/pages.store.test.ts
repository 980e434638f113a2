/**
 * Pages (issue 39, docs/boards.md "Pages") as store contract tests on PGlite and real Postgres: a
 * lesson is an ordered list of pages, each a board of its own; only the teacher changes the list;
 * a paced student reads and edits only the teacher's page; a deleted page ends the locks on it and
 * is restorable; teach-again copies the pages and nothing else; a prepared lesson admits no
 * student until it starts; deleting a lesson deletes its pages.
 */
import { randomUUID } from 'node:crypto';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { sql } from 'drizzle-orm';
import { FrozenClock } from '../src/clock.ts';
import { purgeRoom } from '../src/retention.ts';
import { rows } from '../src/sql.ts';
import type { EditActor } from '../src/elements.ts';
import { lessonPages } from '../src/pages.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, SESSION_TTL_MS, requestId, seatStudent, storeDatabaseKinds } from './fixtures.ts';

const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`pages on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    const count = async (query: ReturnType<typeof sql>) => Number((await rows<{ n: unknown }>(testDb.database.db, query))[0]?.n);

    /** A lesson of a signed-in teacher account, its teacher's session and a student. */
    async function lesson(options: { prepared?: boolean } = {}) {
      const teacherId = randomUUID();
      await testDb.database.db.execute(
        sql`INSERT INTO teachers (id, email, display_name, password_hash, created_at) VALUES (${teacherId}::uuid, ${`${teacherId}@school.test`}, 'Ms Page', 'x', now())`,
      );
      const created = decided(
        await store.createRoom({ code: randomUUID().slice(0, 10).toUpperCase(), title: 'Fractions', teacherName: 'Ms Page', memberKeyHash: randomUUID(), teacherId, prepared: options.prepared ?? false }),
        'created',
      );
      const roomId = created.room.id;
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId, userId: created.member.userId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId, sessionId: teacherSession, userId: created.member.userId };
      return { roomId, teacherAccount: teacherId, teacher, room: created.room };
    }

    async function withStudent(l: Awaited<ReturnType<typeof lesson>>) {
      const seat = await seatStudent(store, { roomId: l.roomId, teacherId: l.teacher.userId });
      return { roomId: l.roomId, sessionId: seat.sessionId, userId: seat.userId } satisfies EditActor;
    }

    const reader = (who: EditActor) => ({ lessonId: who.roomId, sessionId: who.sessionId, userId: who.userId });
    const on = (who: EditActor, pageId: string): EditActor => ({ ...who, roomId: pageId });

    test('a lesson starts with one page: its own board, so every lesson made before is a one-page lesson', async () => {
      const l = await lesson();
      expect(await lessonPages(testDb.database.db, l.roomId)).toEqual({
        pages: [{ id: l.roomId, title: '', background: 'dots' }],
        currentPageId: l.roomId,
        pacing: 'paced',
      });
    });

    test('the teacher adds, renames, duplicates, moves, deletes and restores pages; each change is one pages.updated in the lesson log', async () => {
      const l = await lesson();
      const two = randomUUID();
      const added = decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId, background: 'grid', title: 'Warm-up' }), 'applied');
      expect(added.pages.pages.map((p) => [p.id, p.title, p.background])).toEqual([
        [l.roomId, '', 'dots'],
        [two, 'Warm-up', 'grid'],
      ]);
      expect(added.events.map((e) => [e.kind, e.roomId])).toEqual([['pages.updated', l.roomId]]);
      // A retry of the same add (same page id) makes nothing new.
      expect(decided(await store.addPage(l.teacher, { pageId: two, afterPageId: null }), 'already_applied').pages.pages).toHaveLength(2);

      const onTwo = decided(await store.createElement(on(l.teacher, two), { id: randomUUID(), shape: square }), 'applied');
      expect(onTwo.events[0]!.roomId).toBe(two);
      const three = randomUUID();
      const copied = decided(await store.duplicatePage(l.teacher, { pageId: three, sourcePageId: two }), 'applied');
      expect(copied.pages.pages.map((p) => p.id)).toEqual([l.roomId, two, three]);
      expect(copied.pages.pages[2]).toMatchObject({ title: 'Warm-up', background: 'grid' });
      const snapshot = decided(await store.loadPageSnapshot(reader(l.teacher), three), 'ok').snapshot;
      expect(snapshot.elements.map((e) => e.id)).toEqual([onTwo.element.id]);
      // The copy is in the new page's own log; the source is untouched.
      expect(copied.events.filter((e) => e.kind === 'element.created').map((e) => e.roomId)).toEqual([three]);

      decided(await store.updatePage(l.teacher, { pageId: three, title: 'Practice' }), 'applied');
      decided(await store.updatePage(l.teacher, { pageId: three, title: 'Practice' }), 'already_applied');
      const moved = decided(await store.movePage(l.teacher, { pageId: three, afterPageId: null }), 'applied');
      expect(moved.pages.pages.map((p) => p.id)).toEqual([three, l.roomId, two]);

      const deleted = decided(await store.deletePage(l.teacher, { pageId: l.roomId }), 'applied');
      expect(deleted.pages.pages.map((p) => p.id)).toEqual([three, two]);
      const listed = await store.listPages(reader(l.teacher));
      if (listed === 'not_a_member') throw new Error('teacher refused');
      expect(listed.deleted.map((p) => p.id)).toEqual([l.roomId]);
      // Restored where it was: between the pages it stood between.
      const restored = decided(await store.restorePage(l.teacher, { pageId: l.roomId }), 'applied');
      expect(restored.pages.pages.map((p) => p.id)).toEqual([three, l.roomId, two]);
      const revisions = await rows<{ revision: unknown }>(
        testDb.database.db,
        sql`SELECT revision FROM room_events WHERE room_id = ${l.roomId}::uuid AND kind = 'pages.updated' ORDER BY revision`,
      );
      expect(revisions).toHaveLength(6);
    });

    test('the only live page cannot be deleted', async () => {
      const l = await lesson();
      decided(await store.deletePage(l.teacher, { pageId: l.roomId }), 'last_page');
      expect((await lessonPages(testDb.database.db, l.roomId))!.pages).toHaveLength(1);
    });

    test('a student may not add, duplicate, rename, move, delete, restore, go to or pace pages, and nothing changes', async () => {
      const l = await lesson();
      const ana = await withStudent(l);
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId }), 'applied');
      const before = await lessonPages(testDb.database.db, l.roomId);
      decided(await store.addPage(ana, { pageId: randomUUID(), afterPageId: null }), 'forbidden');
      decided(await store.duplicatePage(ana, { pageId: randomUUID(), sourcePageId: two }), 'forbidden');
      decided(await store.updatePage(ana, { pageId: two, title: 'Mine' }), 'forbidden');
      decided(await store.movePage(ana, { pageId: two, afterPageId: null }), 'forbidden');
      decided(await store.deletePage(ana, { pageId: two }), 'forbidden');
      decided(await store.restorePage(ana, { pageId: two }), 'forbidden');
      decided(await store.gotoPage(ana, { pageId: two }), 'forbidden');
      decided(await store.setPacing(ana, { pacing: 'free' }), 'forbidden');
      // Naming a page as the room (a hand-written packet) is no way round it.
      decided(await store.addPage(on(ana, two), { pageId: randomUUID(), afterPageId: null }), 'forbidden');
      expect(await lessonPages(testDb.database.db, l.roomId)).toEqual(before);
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE parent_id = ${l.roomId}::uuid`)).toBe(1);
    });

    test('a paced student reads and edits only the teacher page; free pacing lets them browse; going back paces them again', async () => {
      const l = await lesson();
      const ana = await withStudent(l);
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId }), 'applied');
      // The teacher is on page 1: page 2 is not the student's to read or draw on.
      expect((await store.readablePage(reader(ana), two)).decision).toBe('paced');
      expect((await store.loadPageSnapshot(reader(ana), two)).decision).toBe('paced');
      decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'look_only');
      decided(await store.createElement(ana, { id: randomUUID(), shape: square }), 'applied');
      // She moves: the class moves with her.
      decided(await store.gotoPage(l.teacher, { pageId: two }), 'applied');
      expect((await store.readablePage(reader(ana), two)).decision).toBe('ok');
      expect((await store.readablePage(reader(ana), l.roomId)).decision).toBe('paced');
      decided(await store.createElement(ana, { id: randomUUID(), shape: square }), 'look_only');
      decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'applied');
      // The batched create decides the same (wb_create_batch, migration 0021).
      const [batched] = await store.createElements([{ actor: ana, id: randomUUID(), shape: square }]);
      expect(batched?.decision).toBe('look_only');
      decided(await store.setPacing(l.teacher, { pacing: 'free' }), 'applied');
      expect((await store.readablePage(reader(ana), l.roomId)).decision).toBe('ok');
      decided(await store.createElement(ana, { id: randomUUID(), shape: square }), 'applied');
      decided(await store.setPacing(l.teacher, { pacing: 'paced' }), 'applied');
      expect((await store.readablePage(reader(ana), l.roomId)).decision).toBe('paced');
      // The teacher reads and edits every page whatever the pacing.
      expect((await store.readablePage(reader(l.teacher), l.roomId)).decision).toBe('ok');
      decided(await store.createElement(l.teacher, { id: randomUUID(), shape: square }), 'applied');
    });

    test('I12: readers checked together are each decided as alone: paced, a teacher, a revoked student, a forged user, another lesson', async () => {
      const l = await lesson();
      const other = await lesson();
      const ana = await withStudent(l);
      const ben = await withStudent(l);
      const cleo = await withStudent(l);
      const stranger = await withStudent(other);
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId }), 'applied');
      decided(await store.revokeMember({ roomId: l.roomId, userId: cleo.userId, by: l.teacher.userId, reason: null, requestId: null }), 'revoked');
      const forged = { ...reader(ben), userId: ana.userId };
      const readers = [reader(ana), reader(l.teacher), reader(cleo), forged, reader(stranger)];
      const decisions = async (pageId: string) => {
        const batch = await store.readablePageFor(l.roomId, readers, pageId);
        return readers.map((r) => batch.get(r.sessionId)?.decision);
      };
      // Paced on page 1: page 2 is the teacher's alone; a revoked member, a session under another
      // user's id and a reader of another lesson are no members of this one.
      expect(await decisions(two)).toEqual(['paced', 'ok', 'not_a_member', 'not_a_member', 'not_a_member']);
      // The same as each alone.
      for (const r of [reader(ana), reader(l.teacher), reader(cleo)]) expect((await store.readablePage(r, two)).decision).toBe((await store.readablePageFor(l.roomId, [r], two)).get(r.sessionId)?.decision);
      decided(await store.gotoPage(l.teacher, { pageId: two }), 'applied');
      expect(await decisions(two)).toEqual(['ok', 'ok', 'not_a_member', 'not_a_member', 'not_a_member']);
      expect(await decisions(l.roomId)).toEqual(['paced', 'ok', 'not_a_member', 'not_a_member', 'not_a_member']);
      expect(await decisions(randomUUID())).toEqual(['not_found', 'not_found', 'not_a_member', 'not_a_member', 'not_a_member']);
      // ben alone, asked rightly, reads the teacher's page.
      expect((await store.readablePageFor(l.roomId, [reader(ben)], two)).get(ben.sessionId)?.decision).toBe('ok');
    });

    test('a page deleted while a student holds a lock on it ends the lock; the student may not touch it until it is restored', async () => {
      const l = await lesson();
      const ana = await withStudent(l);
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId }), 'applied');
      decided(await store.gotoPage(l.teacher, { pageId: two }), 'applied');
      const mine = decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'applied').element;
      const grant = decided(await store.acquireLock(on(ana, two), { elementId: mine.id, requestId: requestId('grab'), firstTermMs: 5_000 }), 'granted');
      const deleted = decided(await store.deletePage(l.teacher, { pageId: two }), 'applied');
      // The lock ended in the page's own log, before the list changed in the lesson's.
      expect(deleted.events.map((e) => [e.kind, e.roomId])).toEqual([
        ['lock.released', two],
        ['pages.updated', l.roomId],
      ]);
      // The teacher (and the paced class) moved to the page before it.
      expect(deleted.pages.currentPageId).toBe(l.roomId);
      expect((await store.readLock(two, mine.id))?.sessionId).toBeNull();
      // The former holder's drop is refused (look-only on a deleted page), never applied.
      const late = await store.releaseLock(on(ana, two), { elementId: mine.id, generation: grant.generation, shape: { ...square, x: 99 }, requestId: requestId('drop') });
      expect(late.decision).not.toBe('applied');
      decided(await store.updateElement(on(ana, two), { id: mine.id, baseVersion: mine.version, shape: { ...square, x: 99 }, requestId: requestId('edit') }), 'look_only');
      decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'look_only');
      expect((await store.readablePage(reader(ana), two)).decision).toBe('not_found');
      decided(await store.setPacing(l.teacher, { pacing: 'free' }), 'applied');
      expect((await store.readablePage(reader(ana), two)).decision).toBe('not_found');
      // Restored with its content as it was.
      decided(await store.restorePage(l.teacher, { pageId: two }), 'applied');
      const back = decided(await store.loadPageSnapshot(reader(ana), two), 'ok').snapshot;
      expect(back.elements.map((e) => [e.id, e.shape])).toEqual([[mine.id, square]]);
      decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'applied');
    });

    test('a page takes the lesson edit policy: a look-only lesson is look-only on every page', async () => {
      const l = await lesson();
      const ana = await withStudent(l);
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId }), 'applied');
      decided(await store.gotoPage(l.teacher, { pageId: two }), 'applied');
      decided(await store.setLessonSettings(l.teacher, { editPolicy: 'look' }), 'applied');
      decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'look_only');
      decided(await store.setLessonSettings(l.teacher, { editPolicy: 'everyone' }), 'applied');
      decided(await store.createElement(on(ana, two), { id: randomUUID(), shape: square }), 'applied');
    });

    test('a prepared lesson admits its teacher only until she starts it', async () => {
      const l = await lesson({ prepared: true });
      expect(l.room.startedAt).toBeNull();
      const code = randomUUID();
      expect((await store.joinRoom({ roomId: l.roomId, displayName: 'Ana', memberKeyHash: code, role: 'student' })).decision).toBe('not_started');
      // The teacher prepares pages meanwhile.
      decided(await store.addPage(l.teacher, { pageId: randomUUID(), afterPageId: l.roomId }), 'applied');
      decided(await store.createElement(l.teacher, { id: randomUUID(), shape: square }), 'applied');
      const started = decided(await store.startLesson(l.teacher), 'applied');
      expect(started.room.startedAt).toBe(CLOCK_START.toISOString());
      decided(await store.startLesson(l.teacher), 'already_applied');
      expect((await store.joinRoom({ roomId: l.roomId, displayName: 'Ana', memberKeyHash: code, role: 'student' })).decision).toBe('joined');
    });

    test('teach again copies the pages (order, titles, paper, elements) and nothing else: no students, attendance, private boards, activities or polls', async () => {
      const l = await lesson();
      const ana = await withStudent(l);
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId, title: 'Second', background: 'lined' }), 'applied');
      const gone = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: gone, afterPageId: two, title: 'Deleted' }), 'applied');
      decided(await store.deletePage(l.teacher, { pageId: gone }), 'applied');
      const first = decided(await store.createElement(l.teacher, { id: randomUUID(), shape: square }), 'applied').element;
      const studentWork = decided(await store.createElement(ana, { id: randomUUID(), shape: { ...square, x: 40 } }), 'applied').element;
      const second = decided(await store.createElement(on(l.teacher, two), { id: randomUUID(), shape: { ...square, x: 80 } }), 'applied').element;
      const activity = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Try', start: { kind: 'blank' } }), 'applied');
      decided(await store.openPoll(l.teacher, { pollId: randomUUID(), question: 'Ready?', kind: 'yesno' }), 'applied');
      expect(activity.boards).toHaveLength(1);

      const again = decided(
        await store.createRoom({
          code: randomUUID().slice(0, 10).toUpperCase(),
          title: 'Fractions (again)',
          teacherName: 'Ms Page',
          memberKeyHash: randomUUID(),
          teacherId: l.teacherAccount,
          prepared: true,
          copyPagesFrom: l.roomId,
        }),
        'created',
      );
      const copy = again.room.id;
      expect(again.room.startedAt).toBeNull();
      const pages = (await lessonPages(testDb.database.db, copy))!;
      expect(pages.pages.map((p) => [p.title, p.background])).toEqual([
        ['', 'dots'],
        ['Second', 'lined'],
      ]);
      expect(pages.pages[0]!.id).toBe(copy);
      const elementsOf = async (board: string) =>
        rows<{ id: string; created_by: string }>(testDb.database.db, sql`SELECT id, created_by FROM elements WHERE room_id = ${board}::uuid AND NOT deleted ORDER BY z`);
      // Every element of every page, the student's work on the class page included, now the new teacher's.
      expect((await elementsOf(copy)).map((e) => e.id)).toEqual([first.id, studentWork.id]);
      expect((await elementsOf(pages.pages[1]!.id)).map((e) => e.id)).toEqual([second.id]);
      expect((await elementsOf(copy)).every((e) => e.created_by === again.member.userId)).toBe(true);
      // Nothing else: one member (the teacher), no attendance, no private board, activity or poll.
      expect(await count(sql`SELECT count(*) AS n FROM memberships WHERE room_id = ${copy}::uuid`)).toBe(1);
      expect(await count(sql`SELECT count(*) AS n FROM attendance WHERE room_id = ${copy}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE parent_id = ${copy}::uuid AND owner_user_id IS NOT NULL`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE parent_id = ${copy}::uuid`)).toBe(1);
      expect(await count(sql`SELECT count(*) AS n FROM activities WHERE room_id = ${copy}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM polls WHERE room_id = ${copy}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM lesson_pages WHERE room_id = ${copy}::uuid AND deleted_at IS NOT NULL`)).toBe(0);
      // Another teacher cannot copy it.
      const other = randomUUID();
      await testDb.database.db.execute(
        sql`INSERT INTO teachers (id, email, display_name, password_hash, created_at) VALUES (${other}::uuid, ${`${other}@school.test`}, 'Mr Other', 'x', now())`,
      );
      expect(
        (await store.createRoom({ code: randomUUID().slice(0, 10).toUpperCase(), title: 'Stolen', teacherName: 'X', memberKeyHash: randomUUID(), teacherId: other, copyPagesFrom: l.roomId }))
          .decision,
      ).toBe('no_source');
    });

    test('deleting a lesson deletes its pages, their boards and their elements', async () => {
      const l = await lesson();
      const two = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: two, afterPageId: l.roomId }), 'applied');
      decided(await store.createElement(on(l.teacher, two), { id: randomUUID(), shape: square }), 'applied');
      await purgeRoom(testDb.database, l.roomId, 'test');
      expect(await count(sql`SELECT count(*) AS n FROM lesson_pages WHERE room_id = ${l.roomId}::uuid OR board_id = ${two}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM rooms WHERE id = ${two}::uuid`)).toBe(0);
      expect(await count(sql`SELECT count(*) AS n FROM elements WHERE room_id = ${two}::uuid`)).toBe(0);
    });
  });
}
