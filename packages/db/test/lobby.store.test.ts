/**
 * The lobby's rules (docs/store.md, "The lobby", L1-L7) as store contract tests: a room that
 * requires approval makes students `pending`; admit, deny and withdraw are conditional writes
 * that return decisions. Runs on PGlite and real Postgres.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { FrozenClock } from '../src/clock.ts';
import { createStore, type Store } from '../src/store.ts';
import { openTestDatabase, type TestDatabase } from '../src/testing.ts';
import { CLOCK_START, LEASE_TTL_MS, SESSION_TTL_MS, requestId, roomRevision, storeDatabaseKinds } from './fixtures.ts';

const secret = () => randomBytes(16).toString('hex');

for (const { kind, skip } of storeDatabaseKinds) {
  describe.skipIf(skip !== null)(`lobby on ${kind}${skip ? ` (skipped: ${skip})` : ''}`, () => {
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

    async function lobbyRoom(requireApproval = true) {
      const created = await store.createRoom({
        code: secret().slice(0, 10).toUpperCase(),
        title: 'Lobby test',
        teacherName: 'Teacher',
        memberKeyHash: secret(),
        requireApproval,
      });
      if (created.decision !== 'created') throw new Error(created.decision);
      return { roomId: created.room.id, teacherId: created.member.userId, room: created.room };
    }

    /** A student who asked to join, with an open session (as the join route gives them). */
    async function knock(roomId: string, memberKeyHash = secret(), displayName = 'Waiting student') {
      const joined = await store.joinRoom({ roomId, displayName, memberKeyHash, role: 'student' });
      if (joined.decision !== 'pending' && joined.decision !== 'joined' && joined.decision !== 'returned') {
        throw new Error(`join: ${joined.decision}`);
      }
      const sessionId = randomUUID();
      const tokenHash = secret();
      await store.openSession({ id: sessionId, roomId, userId: joined.member.userId, tokenHash, ttlMs: SESSION_TTL_MS });
      return { joined, userId: joined.member.userId, sessionId, tokenHash, memberKeyHash };
    }

    const statusOf = async (roomId: string, userId: string) =>
      (await store.listMembers(roomId)).find((m) => m.userId === userId)?.status;

    test('L1: a join to a room that requires approval is pending, and the room hears member.pending', async () => {
      const { roomId, room } = await lobbyRoom();
      expect(room.requireApproval).toBe(true);
      const { joined, userId } = await knock(roomId);
      expect(joined.decision).toBe('pending');
      expect(joined.member.status).toBe('pending');
      expect(joined.events.map((e) => [e.kind, e.eventId])).toEqual([['member.pending', `member.pending:${userId}:1`]]);
      // The teacher's own membership is never held in the lobby.
      expect((await store.listMembers(roomId)).filter((m) => m.role === 'teacher').map((m) => m.status)).toEqual(['active']);
    });

    test('L1: a pending member holds no lease, renews nothing, cannot edit or lock; the session authenticates as pending', async () => {
      const { roomId } = await lobbyRoom();
      const s = await knock(roomId);
      expect((await store.authenticateSession(s.tokenHash)).decision).toBe('pending');
      expect(await store.openLease({ sessionId: s.sessionId, ttlMs: LEASE_TTL_MS, requestId: null })).toEqual({ decision: 'not_a_member' });
      const [renewal] = await store.renewLeases([{ sessionId: s.sessionId, revision: 5, requestId: requestId('r') }], LEASE_TTL_MS);
      expect(renewal?.decision).toBe('not_a_member');
      const actor = { roomId, sessionId: s.sessionId, userId: s.userId };
      const shape = { kind: 'rect', x: 0, y: 0, w: 10, h: 10, stroke: '#000000', fill: 'transparent', strokeWidth: 2 } as const;
      expect((await store.createElement(actor, { id: randomUUID(), shape })).decision).toBe('not_a_member');
      expect((await store.acquireLock(actor, { elementId: randomUUID(), requestId: requestId('l'), firstTermMs: 2_000 })).decision).toBe(
        'not_a_member',
      );
      expect(await store.listPresence(roomId)).toEqual([]);
    });

    test('L2: admit flips pending to active once, appending member.admitted; a second admit changes nothing', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const s = await knock(roomId);
      const before = await roomRevision(testDb.database, roomId);
      const first = await store.admitMember({ roomId, userId: s.userId, by: teacherId });
      expect(first).toEqual({
        decision: 'admitted',
        events: [
          {
            roomId,
            revision: before + 1,
            eventId: `member.admitted:${s.userId}`,
            kind: 'member.admitted',
            payload: { userId: s.userId, by: teacherId },
          },
        ],
      });
      expect(await store.admitMember({ roomId, userId: s.userId, by: teacherId })).toEqual({ decision: 'not_waiting', status: 'active' });
      expect(await roomRevision(testDb.database, roomId)).toBe(before + 1);
      // The session the student waited with now works: a lease opens.
      expect((await store.authenticateSession(s.tokenHash)).decision).toBe('ok');
      expect(await store.openLease({ sessionId: s.sessionId, ttlMs: LEASE_TTL_MS, requestId: null })).toMatchObject({ decision: 'opened' });
      expect(await store.admitMember({ roomId, userId: randomUUID(), by: teacherId })).toEqual({ decision: 'not_a_member' });
    });

    test('L2: two admits racing on the same member: exactly one admits and one event is appended', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const s = await knock(roomId);
      const before = await roomRevision(testDb.database, roomId);
      const results = await Promise.all([
        store.admitMember({ roomId, userId: s.userId, by: teacherId }),
        store.admitMember({ roomId, userId: s.userId, by: teacherId }),
      ]);
      expect(results.map((r) => r.decision).sort()).toEqual(['admitted', 'not_waiting']);
      expect(await roomRevision(testDb.database, roomId)).toBe(before + 1);
    });

    test('L2: admit all lets in exactly the members pending at that moment, one event each', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const a = await knock(roomId);
      const b = await knock(roomId);
      const c = await knock(roomId);
      await store.denyMember({ roomId, userId: c.userId, by: teacherId, reason: null });
      const all = await store.admitAllPending({ roomId, by: teacherId });
      expect(all.admitted).toEqual([a.userId, b.userId].sort());
      expect(all.events.map((e) => e.kind)).toEqual(['member.admitted', 'member.admitted']);
      expect(await statusOf(roomId, c.userId)).toBe('denied');
      expect(await store.admitAllPending({ roomId, by: teacherId })).toEqual({ admitted: [], events: [] });
    });

    test('L3: deny makes the member denied and closes their sessions; joining again with the key is refused', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const s = await knock(roomId);
      const denied = await store.denyMember({ roomId, userId: s.userId, by: teacherId, reason: 'Wrong class' });
      expect(denied).toMatchObject({ decision: 'denied', closedSessionIds: [s.sessionId] });
      expect(denied.decision === 'denied' && denied.events[0]?.payload).toEqual({ userId: s.userId, by: teacherId, reason: 'Wrong class' });
      expect(await store.denyMember({ roomId, userId: s.userId, by: teacherId, reason: null })).toEqual({
        decision: 'not_waiting',
        status: 'denied',
      });
      expect((await store.authenticateSession(s.tokenHash)).decision).toBe('denied');
      expect(await store.joinRoom({ roomId, displayName: 'Again', memberKeyHash: s.memberKeyHash, role: 'student' })).toEqual({
        decision: 'denied',
      });
      // An active member is not in the lobby: deny refuses to touch them.
      const admitted = await knock(roomId);
      await store.admitMember({ roomId, userId: admitted.userId, by: teacherId });
      expect(await store.denyMember({ roomId, userId: admitted.userId, by: teacherId, reason: null })).toEqual({
        decision: 'not_waiting',
        status: 'active',
      });
      // ...and revocation refuses to touch a waiting one (the teacher denies instead).
      const waiting = await knock(roomId);
      expect(await store.revokeMember({ roomId, userId: waiting.userId, by: teacherId, reason: null, requestId: null })).toEqual({
        decision: 'not_admitted',
      });
    });

    test('L3: a denied member admitted later is active and joins again with the same key as the same member', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const s = await knock(roomId);
      await store.denyMember({ roomId, userId: s.userId, by: teacherId, reason: null });
      expect((await store.admitMember({ roomId, userId: s.userId, by: teacherId })).decision).toBe('admitted');
      const back = await store.joinRoom({ roomId, displayName: 'Waiting student', memberKeyHash: s.memberKeyHash, role: 'student' });
      expect(back).toMatchObject({ decision: 'returned', member: { userId: s.userId, status: 'active' } });
      // The session the denial closed stays closed.
      expect((await store.authenticateSession(s.tokenHash)).decision).toBe('closed');
    });

    test('L4: turning approval off admits nobody; later joins are active; turning it on again is a room.updated', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const waiting = await knock(roomId);
      const off = await store.setRequireApproval({ roomId, requireApproval: false });
      expect(off).toMatchObject({ decision: 'changed', room: { requireApproval: false } });
      expect(off.decision === 'changed' && off.events.map((e) => e.kind)).toEqual(['room.updated']);
      expect(await store.setRequireApproval({ roomId, requireApproval: false })).toMatchObject({ decision: 'unchanged' });
      expect(await statusOf(roomId, waiting.userId)).toBe('pending');
      const later = await knock(roomId);
      expect(later.joined.decision).toBe('joined');
      expect(await statusOf(roomId, later.userId)).toBe('active');
      // Already admitted members stay admitted when approval comes back on; new ones wait.
      await store.setRequireApproval({ roomId, requireApproval: true });
      const again = await store.joinRoom({ roomId, displayName: 'Waiting student', memberKeyHash: later.memberKeyHash, role: 'student' });
      expect(again.decision).toBe('returned');
      expect((await knock(roomId)).joined.decision).toBe('pending');
      expect((await store.admitMember({ roomId, userId: waiting.userId, by: teacherId })).decision).toBe('admitted');
    });

    test('L4: the setting cannot change on an archived room, and the snapshot carries it', async () => {
      const { roomId } = await lobbyRoom(false);
      expect((await store.loadRoomSnapshot(roomId))?.room.requireApproval).toBe(false);
      await store.setRequireApproval({ roomId, requireApproval: true });
      expect((await store.loadRoomSnapshot(roomId))?.room.requireApproval).toBe(true);
      expect(await store.setRequireApproval({ roomId: randomUUID(), requireApproval: true })).toEqual({ decision: 'not_found' });
    });

    test('L5: the lobby writes no attendance; the report lists a denied and a waiting student with no intervals', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const denied = await knock(roomId, secret(), 'Dee');
      const waiting = await knock(roomId, secret(), 'Wes');
      const admitted = await knock(roomId, secret(), 'Ada');
      await store.denyMember({ roomId, userId: denied.userId, by: teacherId, reason: null });
      await store.admitMember({ roomId, userId: admitted.userId, by: teacherId });
      expect(await store.listAttendance(roomId)).toEqual([]);
      await store.openLease({ sessionId: admitted.sessionId, ttlMs: LEASE_TTL_MS, requestId: null });
      expect((await store.listAttendance(roomId)).map((f) => [f.userId, f.kind])).toEqual([[admitted.userId, 'joined']]);
      const report = await store.loadAttendanceReport(roomId);
      const byName = Object.fromEntries((report?.students ?? []).map((s) => [s.displayName, s]));
      expect(byName.Wes?.userId).toBe(waiting.userId);
      expect(byName.Dee).toMatchObject({ membership: 'denied', firstJoin: null, sessions: [], connectedMs: 0 });
      expect(byName.Wes).toMatchObject({ membership: 'pending', firstJoin: null, sessions: [], connectedMs: 0 });
      expect(byName.Ada).toMatchObject({ membership: 'active', connectedNow: true });
    });

    test('L6: a member admitted before returns straight in; a new name while waiting is a new member.pending', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const s = await knock(roomId);
      const renamed = await store.joinRoom({ roomId, displayName: 'New name', memberKeyHash: s.memberKeyHash, role: 'student' });
      expect(renamed).toMatchObject({ decision: 'pending', member: { userId: s.userId, displayName: 'New name', status: 'pending' } });
      expect(renamed.decision === 'pending' && renamed.events.map((e) => e.kind)).toEqual(['member.pending']);
      await store.admitMember({ roomId, userId: s.userId, by: teacherId });
      expect(await store.joinRoom({ roomId, displayName: 'New name', memberKeyHash: s.memberKeyHash, role: 'student' })).toMatchObject({
        decision: 'returned',
        member: { status: 'active' },
        events: [],
      });
    });

    test('L7: withdrawing from the lobby closes the sessions and removes the pending membership; asking again is a new member', async () => {
      const { roomId, teacherId } = await lobbyRoom();
      const s = await knock(roomId);
      const withdrawn = await store.withdrawFromLobby(s.sessionId);
      expect(withdrawn).toMatchObject({ decision: 'withdrawn', userId: s.userId });
      expect(withdrawn.decision === 'withdrawn' && withdrawn.events.map((e) => e.eventId)).toEqual([`member.withdrawn:${s.userId}`]);
      expect(await statusOf(roomId, s.userId)).toBeUndefined();
      expect(await store.withdrawFromLobby(s.sessionId)).toEqual({ decision: 'not_waiting' });
      expect(await store.admitMember({ roomId, userId: s.userId, by: teacherId })).toEqual({ decision: 'not_a_member' });
      const again = await knock(roomId, s.memberKeyHash);
      expect(again.joined.decision).toBe('pending');
      expect(again.userId).not.toBe(s.userId);
      // Admitted first: a late cancel changes nothing (the student signs out instead).
      await store.admitMember({ roomId, userId: again.userId, by: teacherId });
      expect(await store.withdrawFromLobby(again.sessionId)).toEqual({ decision: 'not_waiting' });
      expect(await statusOf(roomId, again.userId)).toBe('active');
    });
  });
}
