/**
 * Membership authorization over the real server: who may remove and restore, and that a removal
 * wins over packets already in flight. PGlite and real Postgres.
 */
import { ClientEvent, ErrorCode, ServerEvent, type SessionGrant } from '@wb/protocol';
import { beforeAll, expect, test } from 'vitest';
import type { App } from '../src/app.ts';
import { createRoom, describeOnEachDatabase, joinAs, joinRoom, newMemberKey, post } from './support.ts';

type ErrorBody = { error: { code: string } };

describeOnEachDatabase('membership authorization', {}, (suite) => {
  const { client } = suite;
  let app: App;
  beforeAll(() => {
    app = suite.app;
  });
  const act = (grant: SessionGrant, action: 'revoke' | 'restore', code: string, userId: string) =>
    post<ErrorBody & { ok?: boolean; decision?: string }>(`${app.url}/api/rooms/${code}/members/${userId}/${action}`, {}, grant.token);


  test('restore: the teacher lets a removed student back in; they rejoin with the same key as the same member', async () => {
    const teacher = await createRoom(app);
    const memberKey = newMemberKey();
    const eve = (await joinRoom(app, teacher.room.code, 'Eve', memberKey)).body;
    const t = client(app, teacher.token);
    await t.ready();
    expect((await act(teacher, 'revoke', teacher.room.code, eve.userId)).status).toBe(200);
    expect((await joinRoom(app, teacher.room.code, 'Eve', memberKey)).body.error?.code).toBe(ErrorCode.MEMBERSHIP_REVOKED);

    const restored = await act(teacher, 'restore', teacher.room.code, eve.userId);
    expect(restored).toEqual({ status: 200, body: { ok: true, decision: 'restored' } });
    const event = await t.until(() => t.eventsOfKind('member.restored').find((e) => e.payload.userId === eve.userId), 'member.restored');
    expect(event.payload.by).toBe(teacher.userId);
    expect(await act(teacher, 'restore', teacher.room.code, eve.userId)).toEqual({
      status: 200,
      body: { ok: true, decision: 'not_revoked' },
    });

    // The old session stays closed; joining again gives a new session for the same member.
    const old = client(app, eve.token);
    await old.until(() => old.connectError, 'refusal');
    expect(old.connectError?.data?.code).toBe(ErrorCode.SESSION_CLOSED);
    const back = await joinRoom(app, teacher.room.code, 'Eve', memberKey);
    expect(back.status).toBe(200);
    expect(back.body.userId).toBe(eve.userId);
    const again = client(app, back.body.token);
    await again.ready();

    const unknown = await act(teacher, 'restore', teacher.room.code, '00000000-0000-4000-8000-000000000000');
    expect([unknown.status, unknown.body.error.code]).toEqual([404, ErrorCode.NOT_FOUND]);
  });

  test('authorization: a student cannot call teacher actions (remove, restore, attendance)', async () => {
    const teacher = await createRoom(app);
    const ana = await joinAs(app, teacher.room.code, 'Ana');
    const bo = await joinAs(app, teacher.room.code, 'Bo');
    await act(teacher, 'revoke', teacher.room.code, bo.userId);
    for (const [action, target] of [['revoke', bo.userId], ['revoke', teacher.userId], ['restore', bo.userId]] as const) {
      const refused = await act(ana, action, teacher.room.code, target);
      expect([action, refused.status, refused.body.error.code]).toEqual([action, 403, ErrorCode.FORBIDDEN]);
    }
    for (const path of ['attendance', 'attendance/report', 'attendance/report.csv']) {
      const response = await fetch(`${app.url}/api/rooms/${teacher.room.code}/${path}`, { headers: { authorization: `Bearer ${ana.token}` } });
      expect([path, response.status]).toEqual([path, 403]);
    }
    expect((await app.store.listMembers(teacher.room.id)).find((m) => m.userId === bo.userId)?.status).toBe('revoked');
  });

  test('authorization: a teacher cannot act in another teacher’s room', async () => {
    const mine = await createRoom(app, 'Mr A');
    const theirs = await createRoom(app, 'Ms B');
    const student = await joinAs(app, theirs.room.code, 'Cy');
    for (const action of ['revoke', 'restore'] as const) {
      const refused = await act(mine, action, theirs.room.code, student.userId);
      expect([action, refused.status, refused.body.error.code]).toEqual([action, 403, ErrorCode.FORBIDDEN]);
    }
    // Naming their room's student under my room's code finds no such member of mine.
    const crossed = await act(mine, 'revoke', mine.room.code, student.userId);
    expect([crossed.status, crossed.body.error.code]).toEqual([404, ErrorCode.NOT_FOUND]);
    expect((await app.store.listMembers(theirs.room.id)).find((m) => m.userId === student.userId)?.status).toBe('active');
  });

  test('authorization: a revoked student cannot act even with packets in flight when the revocation commits', async () => {
    const teacher = await createRoom(app);
    const eve = await joinAs(app, teacher.room.code, 'Eve');
    const bo = await joinAs(app, teacher.room.code, 'Bo');
    const t = client(app, teacher.token);
    await t.ready();
    // What the teacher receives, in order: cursors must never follow the revocation.
    const seen: string[] = [];
    t.socket.on(ServerEvent.ROOM_EVENT, (e) => seen.push(`event:${e.kind}:${'userId' in e.payload ? e.payload.userId : ''}`));
    t.socket.on(ServerEvent.CURSORS, (b) => {
      for (const [sessionId] of b.cursors) seen.push(`cursor:${sessionId}`);
    });
    const s = client(app, eve.token);
    const { welcome } = await s.ready();

    // Keep cursor packets and renewals flowing while the revocation is sent and commits.
    let streaming = true;
    let x = 0;
    const stream = (async () => {
      while (streaming && s.socket.connected) {
        s.socket.emit(ClientEvent.CURSOR, { x: (x += 1), y: 0 });
        await new Promise((resolve) => setImmediate(resolve));
      }
    })();
    const renewals = [1, 2, 3].map((n) => s.renew(welcome.leaseRevision + n, `inflight-${n}-renew`).catch(() => null));
    const revoked = await act(teacher, 'revoke', teacher.room.code, eve.userId);
    expect(revoked.status).toBe(200);
    // Sent after the commit; the socket is being closed, so it may also never be answered.
    const lateRenewal = s.socket
      .timeout(1_000)
      .emitWithAck(ClientEvent.LEASE_RENEW, { revision: welcome.leaseRevision + 10, requestId: 'after-revoke-1' })
      .catch(() => null);
    await s.until(() => s.received['session.ended'][0], 'session.ended');
    streaming = false;
    await stream;

    // Every renewal either committed before the revocation or was refused; none left a lease.
    for (const ack of [...(await Promise.all(renewals)), await lateRenewal]) {
      if (ack && !ack.ok) expect(ack.error.code).toBe(ErrorCode.MEMBERSHIP_REVOKED);
    }
    expect((await app.store.listPresence(teacher.room.id)).some((p) => p.userId === eve.userId)).toBe(false);

    // Eve's socket is closed, so the server has handled all her packets. A cursor Bo sends now
    // reaches the teacher in a later fan-out tick than any of Eve's could have.
    await s.until(() => !s.socket.connected, 'the disconnect');
    const b = client(app, bo.token);
    const { welcome: boWelcome } = await b.ready();
    b.socket.emit(ClientEvent.CURSOR, { x: 1, y: 1 });
    await t.until(() => seen.includes(`cursor:${boWelcome.sessionId}`), 'Bo cursor');
    const removedAt = seen.indexOf(`event:member.revoked:${eve.userId}`);
    expect(removedAt).toBeGreaterThanOrEqual(0);
    expect(seen.slice(removedAt + 1).filter((entry) => entry === `cursor:${welcome.sessionId}`)).toEqual([]);
    expect(seen.slice(0, removedAt)).toContain(`cursor:${welcome.sessionId}`);
  });
});
