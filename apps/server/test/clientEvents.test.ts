import { ClientEvent, ErrorCode, clientEventNames, isAckedClientEvent } from '@wb/protocol';
import { expect, test } from 'vitest';
import { createRoom, describeOnEachDatabase, joinAs } from './support.ts';

/** The server's edge (clientEvents.ts): every client event is validated with its protocol schema. */
describeOnEachDatabase('client events at the edge', {}, (suite) => {
  test('every acknowledged event refuses a malformed packet with bad_request through its ack', async () => {
    const { app, client } = suite;
    const teacher = await createRoom(app);
    const t = client(app, teacher.token);
    await t.ready();
    // session.signOut included: it takes exactly `{}`, and a malformed one signs nobody out.
    const acked = clientEventNames.filter(isAckedClientEvent);
    expect(acked.length).toBeGreaterThan(8);
    const timed = t.socket.timeout(10_000);
    const emit = timed.emitWithAck.bind(timed) as (event: string, packet: unknown) => Promise<unknown>;
    for (const event of acked) {
      const reply = await emit(event, 'not an object');
      expect({ event, reply }).toMatchObject({ event, reply: { ok: false, error: { code: ErrorCode.BAD_REQUEST } } });
    }
  });

  test('a malformed volatile packet (cursor, lock.move) gets a bad_request notice naming its event', async () => {
    const { app, client } = suite;
    const teacher = await createRoom(app);
    const student = await joinAs(app, teacher.room.code, 'Vi');
    const t = client(app, teacher.token);
    await t.ready();
    const s = client(app, student.token);
    await s.ready();
    // One socket each: notices are throttled to one a second per socket.
    const sockets = [
      [t, ClientEvent.CURSOR],
      [s, ClientEvent.LOCK_MOVE],
    ] as const;
    for (const [c, event] of sockets) {
      (c.socket.emit as (event: string, packet: unknown) => unknown)(event, { x: 'nope' });
      const notice = await c.until(() => c.received.notice.find((n) => n.event === event), `the ${event} notice`);
      expect(notice.code).toBe(ErrorCode.BAD_REQUEST);
    }
  });
});
