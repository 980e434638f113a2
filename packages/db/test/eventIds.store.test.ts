/**
 * Event ids as the store writes them (I1: the id is the key clients and the log deduplicate by).
 * A lesson that produces every kind of room event, through every path that appends one (a lock
 * ends by release, by a pin and by the board lock), checked as the log holds it: every id begins
 * with its event's kind and no two are equal, including across rooms that reuse a client-chosen
 * element id. Runs on PGlite and real Postgres.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { ElementShape, RoomEvent, RoomEventKind } from '@wb/protocol';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import type { EditActor } from '../src/elements.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, LEASE_TTL_MS, SESSION_TTL_MS, requestId, storeDatabaseKinds } from './fixtures.ts';

const secret = () => randomBytes(16).toString('hex');
const square: ElementShape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 1 };
const moved: ElementShape = { ...square, x: 40 };
const FIRST_TERM_MS = 2_000;

/** Every kind of the protocol: the compiler refuses this table when a kind is added or removed. */
const EVERY_KIND = Object.keys({
  'member.joined': true,
  'presence.opened': true,
  'presence.expired': true,
  'session.closed': true,
  'member.revoked': true,
  'member.restored': true,
  'member.pending': true,
  'member.admitted': true,
  'member.denied': true,
  'member.withdrawn': true,
  'room.updated': true,
  'element.created': true,
  'element.updated': true,
  'element.deleted': true,
  'lock.granted': true,
  'lock.released': true,
  'element.restored': true,
  'member.pen': true,
  'member.hand': true,
  'activity.updated': true,
  'poll.updated': true,
  'board.flagged': true,
  'pages.updated': true,
} satisfies Record<RoomEventKind, true>).sort();

function decided<T extends { decision: string }, D extends T['decision']>(result: T, decision: D): Extract<T, { decision: D }> {
  if (result.decision !== decision) throw new Error(`expected ${decision}, got ${result.decision}`);
  return result as Extract<T, { decision: D }>;
}

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`event ids on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    /** A room owned by a signed-up teacher (rename and archive need one), with the teacher's session. */
    async function lesson() {
      const account = decided(
        await store.createTeacher({ email: `${secret()}@school.test`, passwordHash: 'argon2id$test', displayName: 'Teacher' }),
        'created',
      );
      const created = decided(
        await store.createRoom({
          code: secret().slice(0, 10).toUpperCase(),
          title: 'Event ids',
          teacherName: 'Teacher',
          memberKeyHash: secret(),
          teacherId: account.teacher.id,
        }),
        'created',
      );
      const roomId = created.room.id;
      const teacher = await sessionFor(roomId, created.member.userId);
      return { roomId, code: created.room.code, teacherAccountId: account.teacher.id, teacher };
    }

    async function sessionFor(roomId: string, userId: string): Promise<EditActor> {
      const sessionId = randomUUID();
      await store.openSession({ id: sessionId, roomId, userId, tokenHash: secret(), ttlMs: SESSION_TTL_MS });
      return { roomId, sessionId, userId };
    }

    async function student(roomId: string): Promise<EditActor> {
      const joined = await store.joinRoom({ roomId, displayName: 'Student', memberKeyHash: secret(), role: 'student' });
      if (joined.decision !== 'joined' && joined.decision !== 'pending') throw new Error(joined.decision);
      return sessionFor(roomId, joined.member.userId);
    }

    async function logOf(roomId: string): Promise<RoomEvent[]> {
      const log = await store.eventsAfter(roomId, 0, 1_000);
      if (log.kind !== 'replay') throw new Error(`log not complete: ${log.kind}`);
      return log.events;
    }

    test('I1: every kind of event a lesson produces has an id that begins with its kind, and no two ids are equal', async () => {
      const { roomId, code, teacherAccountId, teacher } = await lesson();
      const admin = { roomId, by: teacher.userId };

      // The lobby: one student withdraws, one is denied, one admitted.
      decided(await store.setRequireApproval({ roomId, requireApproval: true }), 'changed');
      decided(await store.withdrawFromLobby((await student(roomId)).sessionId), 'withdrawn');
      decided(await store.denyMember({ ...admin, userId: (await student(roomId)).userId, reason: null }), 'denied');
      const admitted = await student(roomId);
      decided(await store.admitMember({ ...admin, userId: admitted.userId }), 'admitted');
      decided(await store.setRequireApproval({ roomId, requireApproval: false }), 'changed');

      // Presence: a lease opens and expires, a session is signed out.
      const pupil = await student(roomId);
      decided(await store.openLease({ sessionId: pupil.sessionId, ttlMs: LEASE_TTL_MS, requestId: requestId('open') }), 'opened');
      clock.advance(LEASE_TTL_MS);
      const [expired] = (await store.findExpiredLeases(100_000)).filter((l) => l.sessionId === pupil.sessionId);
      expect((await store.deleteLeaseIfRevision(expired!)).won).toBe(true);
      decided(await store.closeSession({ sessionId: admitted.sessionId, reason: 'signed_out', requestId: null }), 'closed');

      // The board: an element's life, its drag lock, pinning and the board lock.
      const elementId = randomUUID();
      decided(await store.createElement(pupil, { id: elementId, shape: square }), 'applied');
      decided(await store.updateElement(pupil, { id: elementId, baseVersion: 1, shape: moved, requestId: requestId('u') }), 'applied');
      const grant = decided(await store.acquireLock(pupil, { elementId, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS }), 'granted');
      decided(await store.releaseLock(pupil, { elementId, generation: grant.generation, shape: square, requestId: requestId('r') }), 'applied');
      // Pinning an element a student drags breaks the lock; a look-only policy breaks the others.
      decided(await store.acquireLock(pupil, { elementId, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS }), 'granted');
      const pinned = decided(await store.setElementPinned(teacher, { id: elementId, pinned: true }), 'applied');
      expect(pinned.events.map((e) => e.kind)).toEqual(['lock.released', 'element.updated']);
      expect(pinned.element.lock).toBeNull();
      const otherId = randomUUID();
      decided(await store.createElement(pupil, { id: otherId, shape: square }), 'applied');
      decided(await store.acquireLock(pupil, { elementId: otherId, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS }), 'granted');
      const lookOnly = decided(await store.setLessonSettings(teacher, { editPolicy: 'look' }), 'applied');
      expect(lookOnly.events.map((e) => [e.kind, 'elementId' in e.payload ? e.payload.elementId : null])).toEqual([
        ['lock.released', otherId],
        ['room.updated', null],
      ]);
      decided(await store.setLessonSettings(teacher, { editPolicy: 'everyone' }), 'applied');
      // The teacher mutes the student's pen and gives it back; restores a version; clears and undoes.
      decided(await store.setPenMuted(teacher, { userId: pupil.userId, muted: true }), 'applied');
      decided(await store.setPenMuted(teacher, { userId: pupil.userId, muted: false }), 'applied');
      // A hand goes up and the teacher lowers it.
      decided(await store.setHand(pupil, { userId: pupil.userId, raised: true }), 'applied');
      decided(await store.setHand(teacher, { userId: pupil.userId, raised: false }), 'applied');
      const cleared = decided(await store.clearBoard(teacher, {}), 'applied');
      decided(await store.restoreBatch(teacher, { batchId: cleared.batchId! }), 'applied');
      const pinnedFree = decided(await store.setElementPinned(teacher, { id: otherId, pinned: true }), 'applied');
      expect(pinnedFree.events.map((e) => e.kind)).toEqual(['element.updated']);
      decided(await store.deleteElement(teacher, { id: elementId }), 'applied');

      // An activity (docs/boards.md): started and ended, in the lesson's log.
      const activity = decided(await store.startActivity(teacher, { activityId: randomUUID(), title: 'Boards', start: { kind: 'blank' } }), 'applied');
      // A flag on a private board (in that board's own log), a poll and a timer (room.updated).
      const pupilsBoard = activity.boards.find((b) => b.ownerUserId === pupil.userId)!;
      decided(await store.setBoardFlag(pupil, { boardId: pupilsBoard.id, flag: 'help' }), 'applied');
      decided(await store.setBoardFlag(teacher, { boardId: pupilsBoard.id, flag: null }), 'applied');
      const pollId = randomUUID();
      decided(await store.openPoll(teacher, { pollId, question: 'Ready?', kind: 'yesno' }), 'applied');
      decided(await store.answerPoll(pupil, { pollId, choice: 0 }), 'applied');
      decided(await store.setTimer(teacher, { action: 'start', durationMs: 60_000 }, randomUUID()), 'applied');
      // A page (pages.ts): its list change in the lesson's log.
      decided(await store.addPage(teacher, { pageId: randomUUID(), afterPageId: null }), 'applied');
      decided(await store.setActivityStatus(teacher, { activityId: activity.activity.id, status: 'ended' }), 'applied');

      // Membership: a revocation and its undoing.
      decided(await store.revokeMember({ ...admin, userId: pupil.userId, reason: null, requestId: null }), 'revoked');
      decided(await store.restoreMember({ ...admin, userId: pupil.userId }), 'restored');

      // The room itself: renamed, then archived (which closes the teacher's session).
      decided(await store.renameRoom({ teacherId: teacherAccountId, code, title: 'Event ids, renamed' }), 'renamed');
      decided(await store.archiveRoom({ teacherId: teacherAccountId, code }), 'archived');

      const events = [...(await logOf(roomId)), ...(await logOf(pupilsBoard.id))];
      expect([...new Set(events.map((e) => e.kind))].sort()).toEqual(EVERY_KIND);
      for (const event of events) expect(event.eventId.startsWith(`${event.kind}:`), event.eventId).toBe(true);
      expect(new Set(events.map((e) => e.eventId)).size).toBe(events.length);
    });

    test('I1: an element id reused in another room is a different element there, with event ids of its own', async () => {
      const elementId = randomUUID();
      const rooms = [await lesson(), await lesson()];
      for (const { teacher } of rooms) {
        // The same client-chosen id, the same versions and lock generations in both rooms.
        decided(await store.createElement(teacher, { id: elementId, shape: square }), 'applied');
        decided(await store.updateElement(teacher, { id: elementId, baseVersion: 1, shape: moved, requestId: requestId('u') }), 'applied');
        const grant = decided(await store.acquireLock(teacher, { elementId, requestId: requestId('l'), firstTermMs: FIRST_TERM_MS }), 'granted');
        expect(grant.generation).toBe(1);
        decided(await store.releaseLock(teacher, { elementId, generation: 1, shape: square, requestId: requestId('r') }), 'applied');
        decided(await store.deleteElement(teacher, { id: elementId }), 'applied');
      }
      const ids = (await Promise.all(rooms.map((r) => logOf(r.roomId)))).flat().map((e) => e.eventId);
      expect(new Set(ids).size).toBe(ids.length);
    });
  });
}
