import { ClientEvent, ErrorCode, MAX_COORDINATE, cursorPosition } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { CursorDecoder } from '../src/realtime/cursorIngress.ts';
import { REPLAY_LIMIT } from '../src/realtime/syncHandlers.ts';
import { createRoom, describeOnEachDatabase, joinAs, joinRoom, newMemberKey, post } from './support.ts';

const LEASE_TTL_MS = 120_000;

describeOnEachDatabase('realtime server', {}, (suite) => {
  const { client, clock } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });

  /** A lesson with its teacher and one student, connected and synced in that order. */
  async function lessonOfTwo(studentName: string) {
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, studentName);
    const t = client(app, teacher.token);
    const teacherReady = await t.ready();
    const s = client(app, student.token);
    const studentReady = await s.ready();
    return { teacher, student, t, s, teacherReady, studentReady };
  }

  test('slice: a teacher and a student see each other present and a cursor crosses in board coordinates', async () => {
    const { student, t, s, teacherReady, studentReady } = await lessonOfTwo('Ana');
    expect(teacherReady.welcome.role).toBe('teacher');
    expect(teacherReady.sync.kind).toBe('snapshot');
    if (studentReady.sync.kind !== 'snapshot') throw new Error('expected a snapshot');
    expect(studentReady.sync.snapshot.members.map((m) => m.displayName).sort()).toEqual(['Ana', 'Ms Rivera']);
    expect(studentReady.sync.snapshot.presence.map((p) => p.userId)).toContain(student.userId);

    // The teacher hears the student's presence through the revisioned log.
    const opened = await t.until(
      () => t.eventsOfKind('presence.opened').find((e) => e.payload.userId === student.userId),
      'the student presence.opened',
    );
    expect(opened.revision).toBeGreaterThan(0);

    s.socket.emit(ClientEvent.CURSOR, { x: 120.5, y: -40, t: Date.now() });
    const seen = await t.until(
      () => t.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).find((c) => c.sessionId === student.sessionId),
      'the student cursor at the teacher',
    );
    expect(seen).toMatchObject({ x: 120.5, y: -40, sessionId: student.sessionId });
  });

  test('plain cursor packets take the short way in; a cursor packet in another form still reaches the room', async () => {
    const { student, t, s } = await lessonOfTwo('Kai');
    const serverSocket = [...app.realtime.io.sockets.sockets.values()].find((x) => x.data.sessionId === student.sessionId);
    const decoder = (serverSocket?.client as unknown as { decoder?: unknown }).decoder;
    expect(decoder).toBeInstanceOf(CursorDecoder);
    expect((decoder as CursorDecoder).onCursor).toBeTypeOf('function');

    const at = (x: number) =>
      t.until(
        () => t.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).find((c) => c.sessionId === student.sessionId && c.x === x),
        `the student cursor at x=${x}`,
      );
    s.socket.emit(ClientEvent.CURSOR, { x: 11, y: 1 });
    await at(11);
    // An extra argument makes it a packet the short way declines: Socket.IO's path handles it.
    (s.socket.emit as (...args: unknown[]) => unknown)(ClientEvent.CURSOR, { x: 22, y: 2 }, 'extra');
    await at(22);
  });

  test('handshake refusals are typed: unknown token, wrong protocol, foreign origin', async () => {
    const teacher = await createRoom(app);
    const unknown = client(app, 'x'.repeat(43));
    await unknown.until(() => unknown.connectError, 'refusal');
    expect(unknown.connectError?.data?.code).toBe(ErrorCode.NOT_AUTHENTICATED);

    const oldClient = client(app, teacher.token, { protocol: 0 });
    await oldClient.until(() => oldClient.connectError, 'refusal');
    expect(oldClient.connectError?.data?.code).toBe(ErrorCode.PROTOCOL_MISMATCH);

    const foreign = client(app, teacher.token, { origin: 'https://evil.example' });
    await foreign.until(() => foreign.connectError, 'refusal');
    expect(foreign.connectError?.data?.code).toBe(ErrorCode.ORIGIN_NOT_ALLOWED);
  });

  test('I7: a reload within the term resumes the same session with no presence.opened and no attendance row', async () => {
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Bo');
    const t = client(app, teacher.token);
    await t.ready();
    const first = client(app, student.token);
    const { welcome } = await first.ready();
    await t.until(() => t.eventsOfKind('presence.opened').some((e) => e.payload.userId === student.userId), 'opened');
    const attendanceBefore = await app.store.listAttendance(teacher.room.id);

    first.close();
    const closed = await t.until(
      () => t.received['presence.signal'].find((p) => p.sessionId === student.sessionId && !p.connected),
      'the close signal',
    );
    expect(closed.connected).toBe(false);

    const reloaded = client(app, student.token);
    const again = await reloaded.ready();
    expect(again.welcome.sessionId).toBe(welcome.sessionId);
    expect(again.welcome.leaseRevision).toBeGreaterThan(welcome.leaseRevision);
    await t.until(
      () => t.received['presence.signal'].find((p) => p.sessionId === student.sessionId && p.connected),
      'the reconnect signal',
    );
    expect(t.eventsOfKind('presence.opened').filter((e) => e.payload.userId === student.userId)).toHaveLength(1);
    expect(await app.store.listAttendance(teacher.room.id)).toEqual(attendanceBefore);
  });

  test('renewal decisions over the socket: accepted, already_applied, ignored_old_revision', async () => {
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    const { welcome } = await t.ready();
    const next = welcome.leaseRevision + 1;
    // Every answer also tells the room's revision in the database (a client behind it resyncs).
    const roomRevision = (await app.store.loadRoomSnapshot(teacher.room.id))!.revision;
    expect(await t.renew(next, 'renew-000001')).toEqual({ ok: true, decision: 'accepted', revision: next, roomRevision });
    expect(await t.renew(next, 'renew-000001')).toEqual({ ok: true, decision: 'already_applied', revision: next, roomRevision });
    expect(await t.renew(next, 'renew-000002')).toEqual({ ok: true, decision: 'ignored_old_revision', revision: next, roomRevision });
    expect(await t.renew(next - 1, 'renew-000003')).toMatchObject({ decision: 'ignored_old_revision' });
    const bad = await t.renew(-1, 'renew-000004');
    expect(bad).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
  });

  test('I5: an expired lease reaches every client as exactly one presence.expired; a second sweep publishes nothing', async () => {
    const { teacher, student, t, s, teacherReady } = await lessonOfTwo('Cy');
    const tw = teacherReady.welcome;
    // The student's laptop lid closes: its socket stays open but it renews no more.
    clock.advance(LEASE_TTL_MS / 2);
    expect(await t.renew(tw.leaseRevision + 1, 'teacher-renewal-1')).toMatchObject({ decision: 'accepted' });
    clock.advance(LEASE_TTL_MS / 2 + 1);
    await app.sweeper.pass();
    await app.sweeper.pass();
    const expiry = await t.until(
      () => t.eventsOfKind('presence.expired').find((e) => e.payload.sessionId === student.sessionId),
      'the student expiry',
    );
    expect(expiry.eventId).toBe(`presence.expired:${student.sessionId}:${expiry.payload.revision}`);
    await s.until(() => s.eventsOfKind('presence.expired').length > 0, 'the expiry at the student');
    expect(t.eventsOfKind('presence.expired').filter((e) => e.payload.sessionId === student.sessionId)).toHaveLength(1);
    expect(t.eventsOfKind('presence.expired').some((e) => e.payload.sessionId === teacher.sessionId)).toBe(false);
    const facts = await app.store.listAttendance(teacher.room.id);
    expect(facts.filter((f) => f.kind === 'lease_expired' && f.sessionId === student.sessionId)).toHaveLength(1);

    // The student was alive after all (a slow laptop): its next renewal reopens the lease.
    const revived = await s.renew(expiry.payload.revision + 1, 'student-renewal-after');
    expect(revived).toMatchObject({ ok: true, decision: 'no_lease' });
    const reopened = await t.until(
      () => t.eventsOfKind('presence.opened').find((e) => e.payload.sessionId === student.sessionId && e.revision > expiry.revision),
      'the reopened lease',
    );
    expect(reopened.payload.revision).toBeGreaterThan(expiry.payload.revision);
    const after = await app.store.listAttendance(teacher.room.id);
    expect(after.filter((f) => f.sessionId === student.sessionId).map((f) => f.kind)).toEqual([
      'joined',
      'lease_expired',
      'reconnected',
    ]);
  });

  test('I1: a reconnect with its last revision is replayed the events after it; past the log it gets a snapshot', async () => {
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    const { sync } = await t.ready();
    if (sync.kind !== 'snapshot') throw new Error('expected a snapshot');
    const from = sync.snapshot.revision;
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const bo = await joinAs(app, teacher.room.code, 'Bo');
    t.close();

    const back = client(app, teacher.token, { lastRevision: from });
    const replayed = (await back.ready()).sync;
    if (replayed.kind !== 'replay') throw new Error(`expected a replay, got ${replayed.kind}`);
    expect(replayed.fromRevision).toBe(from);
    const revisions = replayed.events.map((e) => e.revision);
    expect(revisions).toEqual(revisions.map((_, i) => from + 1 + i));
    expect(replayed.events.filter((e) => e.kind === 'member.joined').map((e) => e.payload.userId)).toEqual([
      ana.userId,
      bo.userId,
    ]);
    back.close();

    // The log's limit, both sides of it: REPLAY_LIMIT + 1 more events (the teacher toggles the
    // board lock), then exactly REPLAY_LIMIT behind is still a replay, one more is a snapshot.
    const actor = { roomId: teacher.room.id, sessionId: teacher.sessionId, userId: teacher.userId };
    for (let i = 0; i <= REPLAY_LIMIT; i++) {
      expect((await app.store.setBoardLocked(actor, i % 2 === 0)).decision).toBe('applied');
    }
    const snapshotNow = await app.store.loadRoomSnapshot(teacher.room.id);
    const current = snapshotNow!.revision;
    expect(current - from).toBeGreaterThan(REPLAY_LIMIT);
    const atLimit = client(app, teacher.token, { lastRevision: current - REPLAY_LIMIT });
    const atLimitSync = (await atLimit.ready()).sync;
    if (atLimitSync.kind !== 'replay') throw new Error(`expected a replay at the limit, got ${atLimitSync.kind}`);
    expect(atLimitSync.events).toHaveLength(REPLAY_LIMIT);
    atLimit.close();
    const stale = client(app, teacher.token, { lastRevision: from });
    const pruned = (await stale.ready()).sync;
    expect(pruned.kind).toBe('snapshot');
    if (pruned.kind === 'snapshot') expect(pruned.snapshot.revision).toBe(current);
    stale.close();
    // A revision the room never reached (forged, or another database): a snapshot too.
    const ahead = client(app, teacher.token, { lastRevision: from + 10_000 });
    expect((await ahead.ready()).sync.kind).toBe('snapshot');
  });

  test('sign-out closes the session at once: the client is told, the room hears session.closed, attendance says signed_out', async () => {
    const { teacher, student, t, s } = await lessonOfTwo('Dee');
    const reply = await s.socket.timeout(10_000).emitWithAck(ClientEvent.SIGN_OUT, {});
    expect(reply).toEqual({ ok: true });
    const ended = await s.until(() => s.received['session.ended'][0], 'session.ended');
    expect(ended.code).toBe(ErrorCode.SESSION_CLOSED);
    const closed = await t.until(
      () => t.eventsOfKind('session.closed').find((e) => e.payload.sessionId === student.sessionId),
      'session.closed',
    );
    expect(closed.payload.reason).toBe('signed_out');
    const facts = await app.store.listAttendance(teacher.room.id);
    expect(facts.filter((f) => f.sessionId === student.sessionId).map((f) => f.kind)).toEqual(['joined', 'signed_out']);
    const again = client(app, student.token);
    await again.until(() => again.connectError, 'refusal');
    expect(again.connectError?.data?.code).toBe(ErrorCode.SESSION_CLOSED);
    // Signing out over HTTP afterwards is harmless.
    expect((await post(`${app.url}/api/session/sign-out`, {}, student.token)).status).toBe(200);
  });

  test('revocation: the student is removed at once, later cursor packets are dropped, rejoining is refused', async () => {
    const teacher = await createRoom(app);
    const memberKey = newMemberKey();
    const joined = await joinRoom(app, teacher.room.code, 'Eve', memberKey);
    const student = joined.body;
    const witness = await joinAs(app, teacher.room.code, 'Wes');
    const t = client(app, teacher.token);
    await t.ready();
    // What the teacher's socket receives, in arrival order: room events and cursor entries.
    const wire: ({ kind: string; userId?: string } | { cursorOf: string; x: number })[] = [];
    t.socket.on('room.event', (e) => wire.push({ kind: e.kind, ...('userId' in e.payload ? { userId: String(e.payload.userId) } : {}) }));
    t.socket.on('cursors', (batch) => {
      for (const c of batch.cursors.map(cursorPosition)) wire.push({ cursorOf: c.sessionId, x: c.x });
    });
    const s = client(app, student.token);
    await s.ready();
    const w = client(app, witness.token);
    await w.ready();

    // A student cannot revoke anyone.
    const forbidden = await post<{ error: { code: string } }>(
      `${app.url}/api/rooms/${teacher.room.code}/members/${teacher.userId}/revoke`,
      {},
      student.token,
    );
    expect(forbidden.body.error.code).toBe(ErrorCode.FORBIDDEN);

    // The student keeps moving its cursor (every few ms) across the revocation and after it.
    let x = 0;
    const stream = setInterval(() => s.socket.emit(ClientEvent.CURSOR, { x: ++x, y: 1 }), 3);
    try {
      await t.until(() => wire.some((e) => 'cursorOf' in e && e.cursorOf === student.sessionId), 'a cursor of the student');
      const revoked = await post(
        `${app.url}/api/rooms/${teacher.room.code}/members/${student.userId}/revoke`,
        { reason: 'testing' },
        teacher.token,
      );
      expect(revoked.status).toBe(200);
      const ended = await s.until(() => s.received['session.ended'][0], 'session.ended');
      expect(ended.code).toBe(ErrorCode.MEMBERSHIP_REVOKED);
      await t.until(() => t.eventsOfKind('member.revoked').find((e) => e.payload.userId === student.userId), 'member.revoked');
      // Whatever the student still sends after the revocation is on the wire before this marker.
      for (let k = 0; k < 5; k++) s.socket.emit(ClientEvent.CURSOR, { x: 100_000 + k, y: 1 });
      await new Promise((resolve) => setTimeout(resolve, 20));
    } finally {
      clearInterval(stream);
    }
    // A later cursor from another student, seen by the teacher: every batch before it has arrived.
    w.socket.emit(ClientEvent.CURSOR, { x: 4242, y: 2 });
    await t.until(() => wire.some((e) => 'cursorOf' in e && e.cursorOf === witness.sessionId && e.x === 4242), 'the witness cursor');

    // On the teacher's wire: cursors of the student before its revocation, none after it.
    const revokedAt = wire.findIndex((e) => 'kind' in e && e.kind === 'member.revoked' && e.userId === student.userId);
    expect(revokedAt).toBeGreaterThan(0);
    expect(wire.slice(0, revokedAt).filter((e) => 'cursorOf' in e && e.cursorOf === student.sessionId).length).toBeGreaterThan(0);
    expect(wire.slice(revokedAt).filter((e) => 'cursorOf' in e && e.cursorOf === student.sessionId)).toEqual([]);

    const refused = await joinRoom(app, teacher.room.code, 'Eve', memberKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error?.code).toBe(ErrorCode.MEMBERSHIP_REVOKED);
    const again = client(app, student.token);
    await again.until(() => again.connectError, 'refusal');
    expect(again.connectError?.data?.code).toBe(ErrorCode.MEMBERSHIP_REVOKED);
    // A reload still tells the removed student the teacher's reason, not only that they were removed.
    expect(again.connectError?.data?.message).toContain('Reason: testing');
  });

  test('bad packets get bad_request and the socket keeps serving', async () => {
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    const { welcome } = await t.ready();
    for (const bad of [
      { x: Number.NaN, y: 0 },
      { x: MAX_COORDINATE * 10, y: 0 },
      { x: '1', y: 2 },
      { x: 1, y: 2, extra: true },
      'not an object',
    ]) {
      t.socket.emit(ClientEvent.CURSOR, bad as never);
    }
    const noticed = await t.until(() => t.received.notice[0], 'a notice');
    expect(noticed.code).toBe(ErrorCode.BAD_REQUEST);
    expect(await t.renew(welcome.leaseRevision + 1, 'still-working')).toMatchObject({ ok: true, decision: 'accepted' });
    const sync = await t.socket.timeout(10_000).emitWithAck(ClientEvent.SYNC_REQUEST, { lastRevision: 'x' } as never);
    expect(sync).toMatchObject({ ok: false, error: { code: ErrorCode.BAD_REQUEST } });
  });

  test('I10: a flood is rate_limited while another socket in the room is still served', async () => {
    const { t, s, teacherReady } = await lessonOfTwo('Flo');
    const { welcome } = teacherReady;
    for (let i = 0; i < 2_000; i++) s.socket.emit(ClientEvent.CURSOR, { x: i, y: i });
    // Acknowledged requests sent in the same burst are refused through their acks.
    const acks = await Promise.all(Array.from({ length: 20 }, (_, i) => s.renew(1_000_000 + i, `flooded-${i}-renewal`)));
    const limited = await s.until(() => s.received.notice.find((n) => n.code === ErrorCode.RATE_LIMITED), 'rate_limited');
    expect(limited.event).toBe(ClientEvent.CURSOR);
    expect(acks.filter((a) => !a.ok && a.error.code === ErrorCode.RATE_LIMITED).length).toBeGreaterThan(0);
    expect(await t.renew(welcome.leaseRevision + 1, 'teacher-unaffected')).toMatchObject({ ok: true, decision: 'accepted' });
  });

  test('a session token past its lifetime is refused at the handshake with token_expired, and the client is told', async () => {
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Late');
    // SESSION_TTL_MS defaults to 12 h; the database clock decides (I2). Last test in this file:
    // every later session would be created after the jump anyway.
    clock.advance(12 * 3_600_000 + 1);
    const late = client(app, student.token);
    await late.until(() => late.connectError, 'refusal');
    expect(late.connectError?.data?.code).toBe(ErrorCode.TOKEN_EXPIRED);
    const signOut = await post<{ error: { code: string } }>(`${app.url}/api/session/sign-out`, {}, student.token);
    expect(signOut.body.error.code).toBe(ErrorCode.TOKEN_EXPIRED);
  });
});
