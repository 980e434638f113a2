/**
 * Share links and replay (shareLinks.ts, migration 0022) as contract tests on PGlite and real
 * Postgres, named after the rules in the module's header: a link works only while it is on and
 * its lesson is not open, and stops at once when turned off (SL1); private boards (SL2) and
 * names (SL3) only when included, and nothing that names a person on the wire otherwise; replay
 * only when included (SL4), read a page per statement (SL5); and replay of a page at its last
 * step equals the page's final state, by a hash over the live elements (SL6).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { replayBoard, type ElementShape, type ReplayStep, type SharedElement } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { purgeLesson } from '../src/retention.ts';
import { readReplayPage, decodeReplayCursor } from '../src/shareLinks.ts';
import { rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, newRoom, requestId, seatStudent, SESSION_TTL_MS, storeDatabaseKinds } from './fixtures.ts';

const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;
const pen: ElementShape = { kind: 'pen', x: 5, y: 5, points: [[0, 0, 0.5], [10, 4, 0.5], [20, 0, 0.5]], stroke: '#1d4ed8', strokeWidth: 3 };
const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');
const newToken = () => randomBytes(32).toString('base64url');

/** A board hash over live elements: id, shape and drawing order, keys sorted (jsonb reorders them). */
function boardHash(elements: readonly SharedElement[]): string {
  const sorted = (value: unknown): unknown =>
    Array.isArray(value)
      ? value.map(sorted)
      : value !== null && typeof value === 'object'
        ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, v]) => [k, sorted(v)]))
        : value;
  return hashOf(JSON.stringify([...elements].sort((a, b) => (a.id < b.id ? -1 : 1)).map(sorted)));
}

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`share links and replay on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    /** A lesson with a teacher and a student named Zoë, a few changes on the class board, and a private board of hers. */
    async function lesson() {
      const room = await newRoom(store);
      const teacherSession = randomUUID();
      await store.openSession({ id: teacherSession, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId: teacherSession, userId: room.teacherId };
      const seat = await seatStudent(store, room);
      await testDb.database.db.execute(sql`UPDATE memberships SET display_name = 'Zoë Private' WHERE room_id = ${room.roomId}::uuid AND user_id = ${seat.userId}::uuid`);
      const student: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      clock.advance(1_000);
      const first = decided(await store.createElement(teacher, { id: randomUUID(), shape: square }), 'applied').element;
      clock.advance(1_000);
      const stroke = decided(await store.createElement(student, { id: randomUUID(), shape: pen }), 'applied').element;
      const started = decided(await store.startActivity(teacher, { activityId: randomUUID(), title: 'Try it', start: { kind: 'blank' } }), 'applied');
      const board = started.boards[0]!;
      decided(await store.createElement({ ...student, roomId: board.id }, { id: randomUUID(), shape: { ...square, x: 99 } }), 'applied');
      decided(await store.setActivityStatus(teacher, { activityId: started.activity.id, status: 'ended' }), 'applied');
      return { ...room, teacher, student, first, stroke, privateBoardId: board.id };
    }

    async function ended() {
      const l = await lesson();
      decided(await store.endLesson(l.teacher), 'applied');
      return l;
    }

    async function share(lessonId: string, options: Partial<{ names: boolean; privateBoards: boolean; replay: boolean }> = {}) {
      const token = newToken();
      const made = decided(
        await store.createShareLink({ lessonId, tokenHash: hashOf(token), options: { names: false, privateBoards: false, replay: false, ...options } }),
        'created',
      );
      return { token, hash: hashOf(token), state: made.state };
    }

    test('SL1: a link is made only for a lesson that is not open; reopening the lesson hides it until it ends again', async () => {
      const l = await lesson();
      expect((await store.createShareLink({ lessonId: l.roomId, tokenHash: hashOf(newToken()), options: { names: false, privateBoards: false, replay: false } })).decision).toBe('lesson_open');
      expect((await store.createShareLink({ lessonId: randomUUID(), tokenHash: hashOf(newToken()), options: { names: false, privateBoards: false, replay: false } })).decision).toBe('no_lesson');
      decided(await store.endLesson(l.teacher), 'applied');
      const link = await share(l.roomId);
      expect(link.state).toMatchObject({ on: true, options: { names: false, privateBoards: false, replay: false } });
      expect(await store.openSharedLesson(link.hash)).not.toBeNull();
      decided(await store.reopenLesson(l.teacher), 'applied');
      expect(await store.openSharedLesson(link.hash)).toBeNull();
      expect((await store.readSharedBoard(link.hash, 0)).decision).toBe('off');
      decided(await store.endLesson(l.teacher), 'applied');
      expect(await store.openSharedLesson(link.hash)).not.toBeNull();
    });

    test('SL1: a link turned off stops working at once (lesson, board, replay), for good, even after a new link is made', async () => {
      const l = await ended();
      const link = await share(l.roomId, { replay: true });
      expect((await store.readSharedBoard(link.hash, 0)).decision).toBe('ok');
      expect((await store.readSharedReplay(link.hash, 0, null)).decision).toBe('ok');

      expect(await store.turnOffShareLink(l.roomId)).toEqual({ decision: 'turned_off' });
      expect(await store.openSharedLesson(link.hash)).toBeNull();
      expect((await store.readSharedBoard(link.hash, 0)).decision).toBe('off');
      expect((await store.readSharedReplay(link.hash, 0, null)).decision).toBe('off');
      expect(await store.shareLinkState(l.roomId)).toMatchObject({ on: false, createdAt: null });
      expect(await store.turnOffShareLink(l.roomId)).toEqual({ decision: 'already_off' });

      // A new link works; the old token stays dead. Making a third turns the second off.
      const second = await share(l.roomId);
      expect(await store.openSharedLesson(link.hash)).toBeNull();
      expect(await store.openSharedLesson(second.hash)).not.toBeNull();
      const third = await share(l.roomId);
      expect(await store.openSharedLesson(second.hash)).toBeNull();
      expect(await store.openSharedLesson(third.hash)).not.toBeNull();
      expect(await store.openSharedLesson(hashOf(newToken()))).toBeNull();
    });

    test('SL2: a link shows the lesson\'s live pages in their order, each with its own elements; a deleted page is not shown', async () => {
      const l = await lesson();
      const second = randomUUID();
      const gone = randomUUID();
      decided(await store.addPage(l.teacher, { pageId: second, afterPageId: l.roomId, title: 'Fractions', background: 'grid' }), 'applied');
      decided(await store.addPage(l.teacher, { pageId: gone, afterPageId: second }), 'applied');
      decided(await store.createElement({ ...l.teacher, roomId: second }, { id: randomUUID(), shape: { ...square, x: 40 } }), 'applied');
      decided(await store.deletePage(l.teacher, { pageId: gone }), 'applied');
      decided(await store.endLesson(l.teacher), 'applied');
      const link = await share(l.roomId);
      const shown = await store.openSharedLesson(link.hash);
      expect(shown?.boards.map((b) => [b.kind, b.title, b.paper])).toEqual([
        ['page', null, 'dots'],
        ['page', 'Fractions', 'grid'],
      ]);
      const pageTwo = decided(await store.readSharedBoard(link.hash, 1), 'ok').value;
      expect(pageTwo.elements.map((e) => e.shape)).toEqual([{ ...square, x: 40 }]);
      expect((await store.readSharedBoard(link.hash, 2)).decision).toBe('not_found');
    });

    test('SL2: a link refuses private boards unless they are included; included, each is listed after the pages', async () => {
      const l = await ended();
      const link = await share(l.roomId);
      const shown = await store.openSharedLesson(link.hash);
      expect(shown?.boards.map((b) => b.kind)).toEqual(['page']);
      expect((await store.readSharedBoard(link.hash, 1)).decision).toBe('not_found');
      expect((await store.readSharedReplay(link.hash, 1, null)).decision).toBe('not_found');

      decided(await store.setShareOptions({ lessonId: l.roomId, options: { privateBoards: true } }), 'updated');
      const withBoards = await store.openSharedLesson(link.hash);
      expect(withBoards?.boards.map((b) => [b.index, b.kind])).toEqual([[0, 'page'], [1, 'private']]);
      const privateBoard = decided(await store.readSharedBoard(link.hash, 1), 'ok').value;
      expect(privateBoard.elements.map((e) => e.shape.x)).toEqual([99]);

      decided(await store.setShareOptions({ lessonId: l.roomId, options: { privateBoards: false } }), 'updated');
      expect((await store.readSharedBoard(link.hash, 1)).decision).toBe('not_found');
    });

    test('SL3: nothing a link shows names a person (no user or session id, no student name) unless names are included', async () => {
      const l = await ended();
      const link = await share(l.roomId, { privateBoards: true, replay: true });
      const wire = JSON.stringify([
        await store.openSharedLesson(link.hash),
        await store.readSharedBoard(link.hash, 0),
        await store.readSharedBoard(link.hash, 1),
        await store.readSharedReplay(link.hash, 0, null),
        await store.readSharedReplay(link.hash, 1, null),
      ]);
      for (const secret of [l.teacherId, l.student.userId, l.student.sessionId, l.teacher.sessionId, 'Zoë', 'createdBy', 'updatedBy', '"by"']) {
        expect(wire).not.toContain(secret);
      }
      expect(wire).toContain(l.stroke.id);

      decided(await store.setShareOptions({ lessonId: l.roomId, options: { names: true } }), 'updated');
      const named = await store.openSharedLesson(link.hash);
      expect(named?.boards[1]?.owner).toBe('Zoë Private');
      // Names name the boards' owners only: the steps of a replay still carry no author.
      expect(JSON.stringify(await store.readSharedReplay(link.hash, 0, null))).not.toContain(l.student.userId);
    });

    test('SL4: replay through a link only when included; the teacher always replays, with authors', async () => {
      const l = await ended();
      const link = await share(l.roomId);
      expect((await store.readSharedReplay(link.hash, 0, null)).decision).toBe('no_replay');
      decided(await store.setShareOptions({ lessonId: l.roomId, options: { replay: true } }), 'updated');
      expect((await store.readSharedReplay(link.hash, 0, null)).decision).toBe('ok');
      const teachers = decided(await store.readLessonReplay(l.roomId, 0, null), 'ok').value;
      expect(teachers.steps.map((s) => s.by)).toEqual([l.teacherId, l.student.userId]);
      expect((await store.lessonBoardsForReplay(l.roomId, 'T')).boards.map((b) => [b.kind, b.owner])).toEqual([['page', null], ['private', 'Zoë Private']]);
    });

    test('SL6: replay of a page at its last step equals its final state (board hash), through moves, restyles, deletes, pins, a clear and its undo', async () => {
      const l = await lesson();
      const t = l.teacher;
      const ids: string[] = [l.first.id, l.stroke.id];
      for (let i = 0; i < 6; i++) {
        clock.advance(250);
        ids.push(decided(await store.createElement(t, { id: randomUUID(), shape: { ...square, x: i * 20 } }), 'applied').element.id);
      }
      clock.advance(500);
      decided(await store.updateElement(t, { id: ids[2]!, baseVersion: 1, shape: { ...square, x: 500, fill: '#ff0000' }, requestId: requestId('u') }), 'applied');
      decided(await store.deleteElement(t, { id: ids[3]! }), 'applied');
      decided(await store.setElementPinned(t, { id: ids[4]!, pinned: true }), 'applied');
      clock.advance(500);
      const cleared = decided(await store.clearBoard(t, {}), 'applied');
      // Several changes in one instant (a frozen clock): ordered by element and version.
      decided(await store.restoreBatch(t, { batchId: cleared.batchId! }), 'applied');
      decided(await store.deleteElement(t, { id: ids[5]! }), 'applied');
      decided(await store.endLesson(t), 'applied');

      const snapshot = await store.loadRoomSnapshot(l.roomId);
      const live = snapshot!.elements.map((e) => ({ id: e.id, shape: e.shape, z: e.z }));
      expect(live.length).toBe(ids.length - 2);

      const teachers = decided(await store.readLessonReplay(l.roomId, 0, null), 'ok').value;
      expect(teachers.next).toBeNull();
      expect(boardHash(replayBoard(teachers.steps))).toBe(boardHash(live));
      // An earlier step is an earlier board: before the deletes, the deleted ones are still there.
      expect(replayBoard(teachers.steps, 8).map((e) => e.id).sort()).toEqual(ids.slice(0, 8).sort());

      const link = await share(l.roomId, { replay: true });
      const shared = decided(await store.readSharedReplay(link.hash, 0, null), 'ok').value;
      expect(boardHash(replayBoard(shared.steps))).toBe(boardHash(live));
      expect(boardHash(decided(await store.readSharedBoard(link.hash, 0), 'ok').value.elements)).toBe(boardHash(live));
    });

    test('SL5: a long history comes in pages, one statement each, that together are the whole history in order', async () => {
      const l = await ended();
      const whole = (await readReplayPage(testDb.database.db, l.roomId, { after: null, withAuthors: false })).page;
      const paged: ReplayStep[] = [];
      let after: ReturnType<typeof decodeReplayCursor> = null;
      let pages = 0;
      for (;;) {
        const { page } = await readReplayPage(testDb.database.db, l.roomId, { after, withAuthors: false, limit: 1 });
        paged.push(...page.steps);
        pages++;
        if (page.next === null) break;
        after = decodeReplayCursor(page.next);
        expect(after).not.toBeNull();
      }
      expect(pages).toBe(whole.steps.length);
      expect(paged).toEqual(whole.steps);
      expect(decodeReplayCursor('not a cursor')).toBeNull();
    });

    test('a lesson deleted by retention takes its share links and its replay history with it', async () => {
      const l = await ended();
      const link = await share(l.roomId, { replay: true });
      const purged = await purgeLesson(testDb.database.db, { roomId: l.roomId, reason: 'test', requestedBy: 'operator', teacherId: null, unusedSince: null, wait: true });
      expect(purged).not.toBeNull();
      const [counts] = await rows<{ links: unknown; versions: unknown }>(
        testDb.database.db,
        sql`SELECT (SELECT count(*) FROM share_links WHERE room_id = ${l.roomId}::uuid) AS links,
                   (SELECT count(*) FROM element_versions WHERE room_id = ${l.roomId}::uuid OR room_id = ${l.privateBoardId}::uuid) AS versions`,
      );
      expect([Number(counts!.links), Number(counts!.versions)]).toEqual([0, 0]);
      expect(await store.openSharedLesson(link.hash)).toBeNull();
    });
  });
}
