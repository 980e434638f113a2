/**
 * The cap on live elements per board and the rule that an image element names a picture of its
 * lesson (elementCap.ts, migration 0016), as store contract tests on PGlite and real Postgres:
 * every way an element becomes live (a create, a batch, an activity's copies, a restore) is refused
 * `board_full` at the cap with nothing stored, a multi-element request whole; deleting makes room;
 * each board (class or private) has its own count; and the count is always the real one.
 */
import { createHash, randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { ElementShape } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import type { StoredImage } from '../src/images.ts';
import { int, rows } from '../src/sql.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { pngFile } from '../../protocol/test/pngFixture.ts';
import { CLOCK_START, newRoom, requestId, roomRevision, seatStudent, storeDatabaseKinds, SESSION_TTL_MS } from './fixtures.ts';

const CAP = 3;
const IMAGE_CAPS = { maxImages: 50, maxBytes: 1_000_000 };
const square = { kind: 'rect' as const, x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 } satisfies ElementShape;
let colour = 0;

function picture(): StoredImage {
  colour++;
  const data = pngFile(4, 4, [colour & 0xff, 7, 99, 255]);
  return { sha256: createHash('sha256').update(data).digest('hex'), mime: 'image/png', width: 4, height: 4, bytes: data.length, data };
}

const imageShape = (sha256: string, x = 0): ElementShape => ({ kind: 'image', x, y: 0, w: 40, h: 40, sha256, naturalWidth: 4, naturalHeight: 4 });

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`element cap and lesson images on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
    let testDb: TestDatabase;
    /** Capped at CAP elements per board. */
    let store: Store;
    const clock = new FrozenClock(CLOCK_START);

    beforeAll(async () => {
      testDb = await openTestDatabase(kind);
      store = createStore(testDb.database, clock, { maxPerBoard: CAP });
    });
    afterAll(async () => {
      await testDb?.drop();
    });

    async function lesson() {
      const room = await newRoom(store, { editPolicy: 'everyone' });
      const sessionId = randomUUID();
      await store.openSession({ id: sessionId, roomId: room.roomId, userId: room.teacherId, tokenHash: randomUUID(), ttlMs: SESSION_TTL_MS });
      const teacher: EditActor = { roomId: room.roomId, sessionId, userId: room.teacherId };
      const seat = await seatStudent(store, room);
      const student: EditActor = { roomId: room.roomId, sessionId: seat.sessionId, userId: seat.userId };
      return { ...room, teacher, student };
    }

    const draw = async (s: Store, actor: EditActor, shape: ElementShape = square) =>
      decided(await s.createElement(actor, { id: randomUUID(), shape }), 'applied').element;

    /** What a refusal must leave untouched: the board's rows and revision, and its count. */
    async function footprint(roomId: string) {
      const [row] = await rows<{ elements: unknown; versions: unknown; events: unknown; live: unknown; counted: unknown }>(
        testDb.database.db,
        sql`SELECT (SELECT count(*) FROM elements WHERE room_id = ${roomId}::uuid) AS elements,
                   (SELECT count(*) FROM element_versions WHERE room_id = ${roomId}::uuid) AS versions,
                   (SELECT count(*) FROM room_events WHERE room_id = ${roomId}::uuid) AS events,
                   (SELECT live_elements FROM rooms WHERE id = ${roomId}::uuid) AS live,
                   (SELECT count(*) FROM elements WHERE room_id = ${roomId}::uuid AND NOT deleted) AS counted`,
      );
      return {
        elements: int(row!.elements),
        versions: int(row!.versions),
        events: int(row!.events),
        live: int(row!.live),
        counted: int(row!.counted),
        revision: await roomRevision(testDb.database, roomId),
      };
    }

    test('[CAP1] at the cap a create is refused board_full and stores nothing; a retry still answers; a delete makes room', async () => {
      const l = await lesson();
      const drawn = [await draw(store, l.student), await draw(store, l.teacher), await draw(store, l.student)];
      const before = await footprint(l.roomId);
      expect(before.live).toBe(CAP);
      const refused = await store.createElement(l.student, { id: randomUUID(), shape: square });
      expect(refused).toEqual({ decision: 'board_full' });
      // The teacher is held to the board's cap too: it bounds the board, not a person.
      expect((await store.createElement(l.teacher, { id: randomUUID(), shape: square })).decision).toBe('board_full');
      expect(await footprint(l.roomId)).toEqual(before);
      // The creator retrying a create that was applied gets it back, at the cap as anywhere.
      expect((await store.createElement(l.student, { id: drawn[0]!.id, shape: square })).decision).toBe('already_applied');
      decided(await store.deleteElement(l.teacher, { id: drawn[1]!.id }), 'applied');
      expect((await footprint(l.roomId)).live).toBe(CAP - 1);
      await draw(store, l.student);
      expect((await footprint(l.roomId)).live).toBe(CAP);
    });

    test('[CAP2] a batch below the cap is written whole; near it the creates are decided in order and the last refused', async () => {
      const l = await lesson();
      const batch = (n: number) => Array.from({ length: n }, () => ({ actor: l.student, id: randomUUID(), shape: square }));
      const whole = await store.createElements(batch(2));
      expect(whole.map((r) => r.decision)).toEqual(['applied', 'applied']);
      const before = await footprint(l.roomId);
      expect(before.live).toBe(2);
      const near = batch(3);
      const results = await store.createElements(near);
      expect(results.map((r) => r.decision)).toEqual(['applied', 'board_full', 'board_full']);
      const after = await footprint(l.roomId);
      expect(after).toEqual({ ...before, elements: 3, versions: before.versions + 1, events: before.events + 1, live: 3, counted: 3, revision: before.revision + 1 });
      const stored = await rows<{ id: string }>(testDb.database.db, sql`SELECT id FROM elements WHERE room_id = ${l.roomId}::uuid`);
      expect(stored.map((s) => s.id)).toContain(near[0]!.id);
      expect(stored.map((s) => s.id)).not.toContain(near[1]!.id);
    });

    test('[CAP3] each board has its own count: a full class board stops nobody on a private board, and a full private board only its owner', async () => {
      const l = await lesson();
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Own', start: { kind: 'blank' } }), 'applied');
      const board = started.boards[0]!;
      for (let i = 0; i < CAP; i++) await draw(store, l.teacher);
      expect((await store.createElement(l.teacher, { id: randomUUID(), shape: square })).decision).toBe('board_full');
      const mine: EditActor = { ...l.student, roomId: board.id };
      for (let i = 0; i < CAP; i++) await draw(store, mine);
      expect((await store.createElement(mine, { id: randomUUID(), shape: square })).decision).toBe('board_full');
      // Deleting on the class board makes room there, not on the private board.
      const classBoard = await store.loadRoomSnapshot(l.roomId);
      decided(await store.deleteElement(l.teacher, { id: classBoard!.elements[0]!.id }), 'applied');
      expect((await store.createElement(mine, { id: randomUUID(), shape: square })).decision).toBe('board_full');
      await draw(store, l.teacher);
    });

    test('[CAP4] an activity whose copies would pass the cap is refused whole: no activity, no board, no event', async () => {
      const l = await lesson();
      for (let i = 0; i < CAP; i++) await draw(store, l.teacher);
      const tight = createStore(testDb.database, clock, { maxPerBoard: CAP - 1 });
      const lessonBefore = await footprint(l.roomId);
      const activityId = randomUUID();
      expect(await tight.startActivity(l.teacher, { activityId, title: 'Copy', start: { kind: 'board' } })).toEqual({ decision: 'board_full' });
      expect(await footprint(l.roomId)).toEqual(lessonBefore);
      const left = await rows<{ n: unknown }>(
        testDb.database.db,
        sql`SELECT (SELECT count(*) FROM activities WHERE room_id = ${l.roomId}::uuid) + (SELECT count(*) FROM rooms WHERE parent_id = ${l.roomId}::uuid) AS n`,
      );
      expect(int(left[0]!.n)).toBe(0);
      // Under the cap it fits; a late joiner's board under a cap it no longer fits is refused too.
      decided(await store.startActivity(l.teacher, { activityId, title: 'Copy', start: { kind: 'board' } }), 'applied');
      const late = await seatStudent(store, { roomId: l.roomId, teacherId: l.teacherId });
      const lateActor: EditActor = { roomId: l.roomId, sessionId: late.sessionId, userId: late.userId };
      expect(await tight.openMyBoard(lateActor)).toEqual({ decision: 'board_full' });
      expect(decided(await store.openMyBoard(lateActor), 'applied').events).toHaveLength(CAP);
    });

    test('[CAP5] a restore that would pass the cap is refused: a cleared batch comes back whole or not at all', async () => {
      const l = await lesson();
      const first = await draw(store, l.teacher);
      const second = await draw(store, l.teacher);
      const cleared = decided(await store.clearBoard(l.teacher, {}), 'applied');
      expect((await footprint(l.roomId)).live).toBe(0);
      await draw(store, l.teacher);
      await draw(store, l.teacher);
      const before = await footprint(l.roomId);
      expect(await store.restoreBatch(l.teacher, { batchId: cleared.batchId! })).toEqual({ decision: 'board_full' });
      expect(await footprint(l.roomId)).toEqual(before);
      // One of the two fits: restoring that element's version brings it back and fills the board.
      decided(await store.restoreElementVersion(l.teacher, { elementId: first.id, version: 1 }), 'applied');
      const full = await footprint(l.roomId);
      expect([full.live, full.counted]).toEqual([CAP, CAP]);
      expect(await store.restoreElementVersion(l.teacher, { elementId: second.id, version: 1 })).toEqual({ decision: 'board_full' });
      // Restoring a live element's older version changes no count: it is allowed at the cap.
      decided(await store.restoreElementVersion(l.teacher, { elementId: first.id, version: 1 }), 'applied');
      expect(await footprint(l.roomId)).toMatchObject({ live: CAP, counted: CAP });
    });

    test('[CAP6] the count is the real count after creates, batches, deletes, a clear, restores and board copies', async () => {
      const roomy = createStore(testDb.database, clock, { maxPerBoard: 1_000 });
      const l = await lesson();
      for (let i = 0; i < 5; i++) await draw(roomy, l.student);
      await roomy.createElements(Array.from({ length: 4 }, () => ({ actor: l.teacher, id: randomUUID(), shape: square })));
      const snapshot = await roomy.loadRoomSnapshot(l.roomId);
      decided(await roomy.deleteElement(l.teacher, { id: snapshot!.elements[0]!.id }), 'applied');
      decided(await roomy.deleteElement(l.teacher, { id: snapshot!.elements[0]!.id }), 'already_applied');
      const cleared = decided(await roomy.clearBoard(l.teacher, { of: l.student.userId }), 'applied');
      decided(await roomy.restoreBatch(l.teacher, { batchId: cleared.batchId! }), 'applied');
      decided(await roomy.restoreBatch(l.teacher, { batchId: cleared.batchId! }), 'applied');
      const started = decided(await roomy.startActivity(l.teacher, { activityId: randomUUID(), title: 'All', start: { kind: 'board' } }), 'applied');
      const rooms = [l.roomId, ...started.boards.map((b) => b.id)];
      for (const roomId of rooms) {
        const f = await footprint(roomId);
        expect(f.live, roomId).toBe(f.counted);
      }
      expect((await footprint(l.roomId)).live).toBe(8);
      expect((await footprint(started.boards[0]!.id)).live).toBe(8);
    });

    test('[IMG-E1] an image element must name a picture of its lesson: another lesson\'s is refused image_unknown, on its own and in a batch', async () => {
      const l = await lesson();
      const other = await lesson();
      const ours = picture();
      const theirs = picture();
      decided(await store.putImage(l.student, ours, IMAGE_CAPS), 'stored');
      decided(await store.putImage(other.student, theirs, IMAGE_CAPS), 'stored');
      const before = await footprint(l.roomId);
      expect(await store.createElement(l.student, { id: randomUUID(), shape: imageShape(theirs.sha256) })).toEqual({ decision: 'image_unknown' });
      expect(await footprint(l.roomId)).toEqual(before);
      const batch = [imageShape(ours.sha256), imageShape(theirs.sha256), square].map((shape) => ({ actor: l.student, id: randomUUID(), shape }));
      expect((await store.createElements(batch)).map((r) => r.decision)).toEqual(['applied', 'image_unknown', 'applied']);
      // A private board's pictures are its lesson's.
      const started = decided(await store.startActivity(l.teacher, { activityId: randomUUID(), title: 'Pics', start: { kind: 'blank' } }), 'applied');
      const mine: EditActor = { ...l.student, roomId: started.boards[0]!.id };
      await draw(store, mine, imageShape(ours.sha256));
      expect((await store.createElement(mine, { id: randomUUID(), shape: imageShape(theirs.sha256) })).decision).toBe('image_unknown');
    });

    test('[IMG-E2] a change may move an image but not swap in a picture the lesson lacks (update and drag commit)', async () => {
      const l = await lesson();
      const other = await lesson();
      const ours = picture();
      const theirs = picture();
      decided(await store.putImage(l.teacher, ours, IMAGE_CAPS), 'stored');
      decided(await store.putImage(other.teacher, theirs, IMAGE_CAPS), 'stored');
      const placed = await draw(store, l.student, imageShape(ours.sha256));
      const moved = decided(
        await store.updateElement(l.student, { id: placed.id, baseVersion: placed.version, shape: imageShape(ours.sha256, 30), requestId: requestId('move') }),
        'applied',
      );
      const swapped = await store.updateElement(l.student, { id: placed.id, baseVersion: moved.element.version, shape: imageShape(theirs.sha256), requestId: requestId('swap') });
      expect(swapped.decision).toBe('image_unknown');
      const grant = await store.acquireLock(l.student, { elementId: placed.id, requestId: requestId('grab'), firstTermMs: 2_000 });
      if (grant.decision !== 'granted') throw new Error(`grant: ${grant.decision}`);
      const commit = await store.releaseLock(l.student, { elementId: placed.id, generation: grant.generation, shape: imageShape(theirs.sha256, 60), requestId: requestId('commit') });
      expect(commit.decision).toBe('image_unknown');
      const kept = decided(
        await store.releaseLock(l.student, { elementId: placed.id, generation: grant.generation, shape: imageShape(ours.sha256, 60), requestId: requestId('commit') }),
        'applied',
      );
      expect(kept.element.shape).toEqual(imageShape(ours.sha256, 60));
    });
  });
}
