import { ClientEvent, cursorPosition } from '@wb/protocol';
import { expect, test } from 'vitest';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

const LEASE_TTL_MS = 120_000;

/**
 * The wiring around socketSession.ts: the publisher's `presence.expired` lapses the session's
 * socket, a renewal's reopen makes it live again, and only a live session's cursor reaches the room.
 */
describeOnEachDatabase('socket session presence, end to end', {}, (suite) => {
  test('a lapsed session sends no cursor until its next renewal reopens the lease', async () => {
    const { app, client, clock } = suite;
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Lu');
    const t = client(app, teacher.token);
    const { welcome } = await t.ready();
    const s = client(app, student.token);
    await s.ready();
    const seenAt = (x: number) =>
      t.received.cursors.flatMap((b) => b.cursors.map(cursorPosition)).find((c) => c.sessionId === student.sessionId && c.x === x);

    s.socket.emit(ClientEvent.CURSOR, { x: 1, y: 1 });
    await t.until(() => seenAt(1), 'the live student cursor');

    // The student's lid closes; the teacher keeps renewing; the sweeper expires the student.
    clock.advance(LEASE_TTL_MS / 2);
    expect(await t.renew(welcome.leaseRevision + 1, 'teacher-keeps-renewing')).toMatchObject({ decision: 'accepted' });
    clock.advance(LEASE_TTL_MS / 2 + 1);
    await app.sweeper.pass();
    const expiry = await s.until(
      () => s.eventsOfKind('presence.expired').find((e) => e.payload.sessionId === student.sessionId),
      'the expiry at the student',
    );

    // Lapsed: its cursor is dropped at the server.
    s.socket.emit(ClientEvent.CURSOR, { x: 2, y: 2 });
    const revived = await s.renew(expiry.payload.revision + 1, 'student-back');
    expect(revived).toMatchObject({ ok: true, decision: 'no_lease' });

    // Live again: its cursor crosses; the one sent while lapsed never did (batches keep order).
    s.socket.emit(ClientEvent.CURSOR, { x: 3, y: 3 });
    await t.until(() => seenAt(3), 'the student cursor after the reopen');
    expect(seenAt(2)).toBeUndefined();
  });
});
